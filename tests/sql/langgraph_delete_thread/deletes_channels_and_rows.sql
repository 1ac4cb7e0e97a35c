-- Deleting a thread deletes every namespace's channel (events, snapshots, operations,
-- executions, annotations) and index rows; a later put starts the thread afresh, under the
-- same channel id, with nothing of the old thread.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(7);

select pg_temp.lg_put('tap-lg-del', '', 'cp-1');
select pg_temp.lg_put('tap-lg-del', 'child:1', 'cp-2');
select pg_temp.lg_write('tap-lg-del', '', 'cp-1', 'task', 0, 'ch', '{"value": 1}');
select pg_temp.completed('langgraph:tap-lg-del', 'k', 'tool', '1');
select actae.annotate_channel('langgraph:tap-lg-del', 'old thread', '{}', null, 0);
select is(actae.langgraph_delete_thread('tap-lg-del'), 2, 'two namespaces forgotten');
select is((select count(*) from actae.langgraph_threads where thread_id = 'tap-lg-del'),
    0::bigint, 'no mapping left');
select is((select count(*) from actae.channels
           where channel_id in ('langgraph:tap-lg-del', 'langgraph:tap-lg-del:child:1')),
    0::bigint, 'the channels are deleted');
select is((select count(*) from actae.executions where channel_id = 'langgraph:tap-lg-del'),
    0::bigint, 'with their executions');
select is((select count(*) from actae.langgraph_get_tuple('tap-lg-del', '')), 0::bigint,
    'no checkpoint left');
select pg_temp.lg_put('tap-lg-del', '', 'cp-1');
select is((select head_cursor from actae.get_channel(pg_temp.lg_channel('tap-lg-del'))),
    1::bigint, 'a new put starts a fresh channel');
select is((select count(*) from actae.annotations
    where channel_id = pg_temp.lg_channel('tap-lg-del')), 0::bigint,
    'without the old thread''s annotations');

select * from finish();
rollback;
