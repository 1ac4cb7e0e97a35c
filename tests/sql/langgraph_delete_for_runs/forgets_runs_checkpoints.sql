-- Every checkpoint whose metadata run_id is listed is forgotten, in every thread and
-- namespace, with its pending writes; other runs' checkpoints stay.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(4);

select pg_temp.lg_put('tap-lg-run', '', 'cp-1', null, '{"run_id": "tap-run-1"}');
select pg_temp.lg_put('tap-lg-run', '', 'cp-2', 'cp-1', '{"run_id": "tap-run-2"}');
select pg_temp.lg_put('tap-lg-run', 'child:1', 'cp-3', null, '{"run_id": "tap-run-1"}');
select pg_temp.lg_put('tap-lg-run-b', '', 'cp-4', null, '{"run_id": "tap-run-1"}');
select pg_temp.lg_write('tap-lg-run', '', 'cp-1', 'task', 0, 'ch', '{"value": 1}');
select is(actae.langgraph_delete_for_runs(array['tap-run-1', 'tap-run-9']), 3,
    'three checkpoints forgotten');
select is((select array_agg(thread_id || '/' || checkpoint_id)
           from actae.langgraph_list(null, null, '{"run_id": "tap-run-2"}')),
    array['tap-lg-run/cp-2'], 'the other run stays');
select is((select count(*) from actae.langgraph_list(null, null, '{"run_id": "tap-run-1"}')),
    0::bigint, 'none of the run is left');
select is((select count(*) from actae.langgraph_writes where checkpoint_id = 'cp-1'
           and channel_id = 'langgraph:tap-lg-run'), 0::bigint, 'its writes go');

select * from finish();
rollback;
