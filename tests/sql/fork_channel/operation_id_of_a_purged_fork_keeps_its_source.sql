-- An operation_id names the fork it made, of its source: once that fork is purged and its id
-- is taken by a fork of another source (same cursor, same policies), or by a fork of the same
-- source with other tool_policies, the operation_id is AC409 ("already used by a fork this
-- caller cannot read"), never a receipt of a channel this operation did not make; nothing is
-- written.
begin;
\ir ../helpers.psql
select plan(7);

select pg_temp.record_steps('tap-opk', 2);
select pg_temp.record_steps('tap-opk-other', 2);
select actae.fork_channel('tap-opk', 1, 'tap-opk-f1', 'op-src');
select actae.fork_channel('tap-opk', 1, 'tap-opk-f2', 'op-pol');
select actae.close_channel('tap-opk-f1');
select actae.close_channel('tap-opk-f2');
select actae._set_test_clock(interval '2 days');
select actae.purge(interval '1 day');
select actae._set_test_clock(null);
select is((select count(*) from actae.channels where channel_id like 'tap-opk-f%'), 0::bigint,
    'both forks were purged');
-- Their ids taken again: f1 by a fork of another source at the same cursor, f2 by a fork of
-- the same source at the same cursor with other policies.
select actae.fork_channel('tap-opk-other', 1, 'tap-opk-f1');
select actae.fork_channel('tap-opk', 1, 'tap-opk-f2', null, '{"t": "live"}');
select pg_temp.ledger_digest() as before \gset

select is(
    pg_temp.error_of($$select actae.fork_channel('tap-opk', 1, 'tap-opk-f1', 'op-src')$$)
        ->> 'sqlstate',
    'AC409', 'op-src no longer names a fork of tap-opk: AC409');
select is(
    pg_temp.error_of($$select actae.fork_channel('tap-opk', 1, 'tap-opk-f1', 'op-src')$$)
        -> 'detail',
    '{"channel_id": "tap-opk", "operation_id": "op-src"}'::jsonb,
    'as an operation_id taken by a fork the caller cannot read');
select is(
    pg_temp.error_of($$select actae.fork_channel('tap-opk', 1, 'tap-opk-f2', 'op-pol')$$)
        ->> 'sqlstate',
    'AC409', 'op-pol no longer names a fork with the policies it gave: AC409');
select is(
    pg_temp.error_of($$select actae.fork_channel('tap-opk', 1, 'tap-opk-f2', 'op-pol')$$)
        -> 'detail',
    '{"channel_id": "tap-opk", "operation_id": "op-pol"}'::jsonb,
    'with the same DETAIL');
select is(pg_temp.ledger_digest(), :'before', 'the refused calls wrote nothing');
select is((select parent_channel_id from actae.get_channel('tap-opk-f1')), 'tap-opk-other',
    'tap-opk-f1 is still the other source''s fork');

select * from finish();
rollback;
