-- keep_latest forgets every checkpoint but the latest of each namespace, with their pending
-- writes; the kept one keeps its own writes and loses its parent link; other threads are
-- untouched. The history (events, snapshots) stays.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(6);

select pg_temp.lg_put('tap-lg-pr', '', 'cp-1');
select pg_temp.lg_put('tap-lg-pr', '', 'cp-2', 'cp-1');
select pg_temp.lg_put('tap-lg-pr', '', 'cp-3', 'cp-2');
select pg_temp.lg_put('tap-lg-pr', 'child:1', 'cp-4');
select pg_temp.lg_put('tap-lg-pr', 'child:1', 'cp-5', 'cp-4');
select pg_temp.lg_write('tap-lg-pr', '', 'cp-2', 'task', 0, 'ch', '{"value": 2}');
select pg_temp.lg_write('tap-lg-pr', '', 'cp-3', 'task', 0, 'ch', '{"value": 3}');
select pg_temp.lg_put('tap-lg-pr-other', '', 'cp-1');
select pg_temp.lg_put('tap-lg-pr-other', '', 'cp-2', 'cp-1');
select is(actae.langgraph_prune(array['tap-lg-pr'], 'keep_latest'), 3, 'three forgotten');
select is((select array_agg(checkpoint_ns || '/' || checkpoint_id)
           from actae.langgraph_list('tap-lg-pr')), array['child:1/cp-5', '/cp-3'],
    'the latest of each namespace is kept');
select is((select (parent_checkpoint_id, pending_writes)::text
           from actae.langgraph_get_tuple('tap-lg-pr', '')),
    (null, '[["task", "ch", {"value": 3}]]'::jsonb)::text,
    'with its writes, without its forgotten parent');
select is((select count(*) from actae.langgraph_writes where checkpoint_id = 'cp-2'
           and channel_id = 'langgraph:tap-lg-pr'), 0::bigint, 'forgotten writes go');
select is((select count(*) from actae.langgraph_list('tap-lg-pr-other')), 2::bigint,
    'other threads are untouched');
select is((select head_cursor from actae.get_channel('langgraph:tap-lg-pr')), 5::bigint,
    'the history stays');

select * from finish();
rollback;
