-- Forgetting a run's checkpoints forgets only their own pending writes: a checkpoint of
-- another run in the same thread namespace keeps its writes.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(3);

select pg_temp.lg_put('tap-lg-dw', '', 'cp-1', null, '{"run_id": "tap-r-1"}');
select pg_temp.lg_put('tap-lg-dw', '', 'cp-2', 'cp-1', '{"run_id": "tap-r-2"}');
select pg_temp.lg_write('tap-lg-dw', '', 'cp-2', 'task', 0, 'ch', '{"value": 2}');

select is(actae.langgraph_delete_for_runs(array['tap-r-1']), 1, 'one checkpoint forgotten');
select is((select pending_writes from actae.langgraph_get_tuple('tap-lg-dw', '', 'cp-2')),
    '[["task", "ch", {"value": 2}]]'::jsonb, 'the other run''s checkpoint keeps its write');
select is((select count(*) from actae.langgraph_writes
           where channel_id = pg_temp.lg_channel('tap-lg-dw') and checkpoint_id = 'cp-2'),
    1::bigint, 'its index row stays');

select * from finish();
rollback;
