-- list_channels' cursor is the channel before_channel_id names, at its own created_at, while
-- that channel exists with a created_at within a millisecond of the one given and the caller
-- may read it: a created_at sent back cut to milliseconds (a JavaScript Date) skips no row. A
-- purged channel's cursor, one created again since (a later created_at), or one of another
-- tenant, is before_created_at as given.
begin;
\ir ../helpers.psql
select plan(5);

select actae.create_channel('tap-lcm-' || i, '{"suite": "tap-lcm"}')
from generate_series(1, 5) as i;
update actae.channels set created_at = '2030-06-01 00:00:00.123456+00'
where channel_id like 'tap-lcm-%';

select results_eq(
    $$select channel_id from actae.list_channels(p_metadata => '{"suite": "tap-lcm"}',
        p_before_created_at => '2030-06-01 00:00:00.123+00', p_before_channel_id => 'tap-lcm-4',
        p_max_rows => 2)$$,
    $$values ('tap-lcm-3'), ('tap-lcm-2')$$,
    'a cursor time cut to milliseconds continues after the last row');
select results_eq(
    $$select channel_id from actae.list_channels(p_metadata => '{"suite": "tap-lcm"}',
        p_before_created_at => '2030-06-01 00:00:00.124+00', p_before_channel_id => 'tap-lcm-2')$$,
    $$values ('tap-lcm-1')$$, 'a later time too: the channel''s own time is the cursor');
select results_eq(
    $$select channel_id from actae.list_channels(p_metadata => '{"suite": "tap-lcm"}',
        p_before_created_at => '2030-06-01 00:00:00.123457+00', p_before_channel_id => 'tap-lcm-0')$$,
    $$values ('tap-lcm-5'), ('tap-lcm-4'), ('tap-lcm-3'), ('tap-lcm-2'), ('tap-lcm-1')$$,
    'a channel that does not exist (purged) pages by the time given');

-- tap-lcm-4 purged and created again an hour later: the page goes on from the time given,
-- not from the new channel's (which would repeat tap-lcm-5).
update actae.channels set created_at = '2030-06-01 01:00:00+00' where channel_id = 'tap-lcm-4';
select results_eq(
    $$select channel_id from actae.list_channels(p_metadata => '{"suite": "tap-lcm"}',
        p_before_created_at => '2030-06-01 00:00:00.123+00', p_before_channel_id => 'tap-lcm-4',
        p_max_rows => 2)$$,
    $$select null::text where false$$,
    'a cursor channel created again since is no cursor: the time given is');

select pg_temp.two_tenants('tap_lcm_a', 'tap_lcm_b', 'tap_lcm_al', 'tap_lcm_bl');
set local session authorization tap_lcm_al;
select actae.create_channel('tap-lcm-a' || i) from generate_series(1, 2) as i;
set local session authorization tap_lcm_bl;
select actae.create_channel('tap-lcm-b');
reset session authorization;
update actae.channels set created_at = '2030-07-01'
where channel_id in ('tap-lcm-a1', 'tap-lcm-a2');
update actae.channels set created_at = '2030-07-02' where channel_id = 'tap-lcm-b';
set local session authorization tap_lcm_al;
select results_eq(
    $$select channel_id from actae.list_channels(
        p_before_created_at => '2030-07-01 00:00:01+00', p_before_channel_id => 'tap-lcm-b',
        p_max_rows => 1000)$$,
    $$values ('tap-lcm-a2'), ('tap-lcm-a1')$$,
    'another tenant''s channel is no cursor: the time given is');
reset session authorization;

select * from finish();
rollback;
