-- Pending writes come back as [task_id, channel, value] in LangGraph's writes_sort_key
-- order (task_path, task_id, idx), not in the order they were recorded.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(1);

select pg_temp.lg_put('tap-lg-ord', '', 'cp-1');
select pg_temp.lg_write('tap-lg-ord', '', 'cp-1', 'b', 1, 'c', '{"value": "b1"}', 'p1');
select pg_temp.lg_write('tap-lg-ord', '', 'cp-1', 'b', 0, 'c', '{"value": "b0"}', 'p1');
select pg_temp.lg_write('tap-lg-ord', '', 'cp-1', 'z', 0, 'c', '{"value": "z0"}', 'p0');
select pg_temp.lg_write('tap-lg-ord', '', 'cp-1', 'a', 0, 'c', '{"value": "a0"}', 'p1');
select is((select pending_writes from actae.langgraph_get_tuple('tap-lg-ord', '')),
    '[["z", "c", {"value": "z0"}], ["a", "c", {"value": "a0"}],
      ["b", "c", {"value": "b0"}], ["b", "c", {"value": "b1"}]]'::jsonb,
    'sorted by task_path, task_id, idx');

select * from finish();
rollback;
