-- Each pending write is an event 'langgraph.write' under operation_id
-- 'write:<checkpoint_id>:<task_id>:<idx>', all of a call in one transaction; the call
-- returns how many it recorded.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(4);

select pg_temp.lg_put('tap-lg-w', '', 'cp-1');
select is(actae.langgraph_put_writes('tap-lg-w', '', 'cp-1', 'task-a', 'p',
    '[{"idx": 0, "channel": "a", "value": {"value": 1}},
      {"idx": 1, "channel": "b", "value": {"value": 2}}]'), 2, 'two writes recorded');
select is(
    (select array_agg(operation_id order by cursor) from actae.list_events('langgraph:tap-lg-w')
     where event_type = 'langgraph.write'),
    array['write:cp-1:task-a:0', 'write:cp-1:task-a:1'], 'operation ids from task id and index');
select is(
    (select payload from actae.list_events('langgraph:tap-lg-w') where cursor = 2),
    '{"checkpoint_id": "cp-1", "task_id": "task-a", "task_path": "p", "idx": 0,
      "channel": "a", "value": {"value": 1}}'::jsonb, 'the payload names the write');
select is((select count(*) from actae.langgraph_writes where channel_id = 'langgraph:tap-lg-w'),
    2::bigint, 'both are indexed');

select * from finish();
rollback;
