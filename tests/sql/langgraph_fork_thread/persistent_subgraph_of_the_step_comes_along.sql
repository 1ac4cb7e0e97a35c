-- A persistent subgraph namespace (no task ids) whose only checkpoint is of the fork
-- checkpoint's own step (parents[''] = C, not an earlier one) comes along, with that
-- checkpoint.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(2);

select pg_temp.lg_put('tap-lg-fp', '', 'cp-1');
select pg_temp.lg_put('tap-lg-fp', '', 'cp-2', 'cp-1');
select pg_temp.lg_put('tap-lg-fp', 'sub', 's-1', null, '{"parents": {"": "cp-2"}}');
select actae.langgraph_fork_thread('tap-lg-fp', '', 'cp-2', 'tap-lg-fp2');

select is(
    (select array_agg(t.checkpoint_ns order by t.checkpoint_ns) from actae.langgraph_threads as t
        where t.thread_id = 'tap-lg-fp2'),
    array['', 'sub'], 'the persistent subgraph comes along');
select is((select checkpoint_id from actae.langgraph_get_tuple('tap-lg-fp2', 'sub')), 's-1',
    'with its checkpoint of the step');

select * from finish();
rollback;
