-- An operation_id names the fork it made: once that fork is purged and its id is used by
-- another fork (another cursor), the operation_id is AC409, not a receipt of the new fork.
begin;
\ir ../helpers.psql
select plan(2);

select actae.record_event('tap-opf', 'e', '{}');
select actae.record_event('tap-opf', 'e', '{}');
select actae.fork_channel('tap-opf', 1, 'tap-opf-fork', 'op1');
select actae.close_channel('tap-opf-fork');
select actae._set_test_clock(interval '2 days');
select actae.purge(interval '1 day');
select is((select count(*) from actae.channels where channel_id = 'tap-opf-fork'), 0::bigint,
    'the fork was purged');
select actae.fork_channel('tap-opf', 2, 'tap-opf-fork');
select throws_ok($$select actae.fork_channel('tap-opf', 1, 'tap-opf-fork', 'op1')$$, 'AC409',
    null, 'op1 no longer names a fork it made');
select actae._set_test_clock(null);

select * from finish();
rollback;
