-- A new_channel_id that is already a fork of another source, at the same cursor and with the
-- same tool_policies, is not this fork: AC409 (not a replay returning the other source's
-- fork), and nothing is written.
begin;
\ir ../helpers.psql
select plan(4);

select pg_temp.record_steps('tap-nas-a', 2);
select pg_temp.record_steps('tap-nas-b', 2);
select actae.fork_channel('tap-nas-a', 1, 'tap-nas-f');
select pg_temp.ledger_digest() as before \gset

select is(
    pg_temp.error_of($$select actae.fork_channel('tap-nas-b', 1, 'tap-nas-f')$$) ->> 'sqlstate',
    'AC409', 'forking another source into that id is AC409');
select is(
    pg_temp.error_of($$select actae.fork_channel('tap-nas-b', 1, 'tap-nas-f')$$) -> 'detail',
    '{"new_channel_id": "tap-nas-f", "parent_channel_id": "tap-nas-a", "fork_cursor": 1}'::jsonb,
    'DETAIL names the channel''s actual parent and cursor');
select is(
    pg_temp.error_of($$select actae.fork_channel('tap-nas-b', 1, 'tap-nas-f', 'op-nas')$$)
        ->> 'sqlstate',
    'AC409', 'also with an operation_id, which is not recorded');
select is(pg_temp.ledger_digest(), :'before', 'nothing was written');

select * from finish();
rollback;
