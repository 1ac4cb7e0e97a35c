-- list_channels' created range is [created_after, created_before): a channel created at
-- exactly created_before is not listed, one at exactly created_after is.
begin;
\ir ../helpers.psql
select plan(3);

select actae.create_channel('tap-lcb-' || i) from generate_series(1, 3) as i;
update actae.channels set created_at = timestamptz '2032-05-01 00:00:00+00' + (i || ' hours')::interval
from generate_series(1, 3) as i where channel_id = 'tap-lcb-' || i;

select results_eq(
    $$select channel_id from actae.list_channels(
        p_created_after => '2032-05-01 01:00:00+00', p_created_before => '2032-05-01 03:00:00+00')$$,
    $$values ('tap-lcb-2'), ('tap-lcb-1')$$,
    'created_after is inclusive and created_before exclusive');
select is((select count(*) from actae.list_channels(
    p_created_before => '2032-05-01 01:00:00+00', p_created_after => '2032-05-01 00:00:00+00')),
    0::bigint, 'a channel created at exactly created_before is left out');
select results_eq(
    $$select channel_id from actae.list_channels(
        p_created_after => '2032-05-01 00:00:00+00', p_created_before => '2032-05-01 01:00:00.000001+00')$$,
    $$values ('tap-lcb-1')$$, 'and one a microsecond before it is listed');

select * from finish();
rollback;
