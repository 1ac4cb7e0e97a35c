-- list_channels orders channels created at the same instant by channel_id, descending, as
-- the keyset (created_at, channel_id) does: paging through channels that share a created_at
-- returns each exactly once, none skipped or repeated.
begin;
\ir ../helpers.psql
select plan(3);

select actae.create_channel('tap-lsc-' || i, '{"suite": "tap-lsc"}') from generate_series(1, 5) as i;
update actae.channels set created_at = '2030-06-01' where channel_id like 'tap-lsc-%';

select results_eq(
    $$select channel_id from actae.list_channels(p_metadata => '{"suite": "tap-lsc"}')$$,
    $$values ('tap-lsc-5'), ('tap-lsc-4'), ('tap-lsc-3'), ('tap-lsc-2'), ('tap-lsc-1')$$,
    'a tie on created_at is ordered by channel_id, descending');
select results_eq(
    $$select channel_id from actae.list_channels(p_metadata => '{"suite": "tap-lsc"}',
        p_before_created_at => '2030-06-01', p_before_channel_id => 'tap-lsc-4',
        p_max_rows => 2)$$,
    $$values ('tap-lsc-3'), ('tap-lsc-2')$$, 'the next page continues after the last row');
select results_eq(
    $$select channel_id from actae.list_channels(p_metadata => '{"suite": "tap-lsc"}',
        p_before_created_at => '2030-06-01', p_before_channel_id => 'tap-lsc-2',
        p_max_rows => 2)$$,
    $$values ('tap-lsc-1')$$, 'and the last page holds the rest');

select * from finish();
rollback;
