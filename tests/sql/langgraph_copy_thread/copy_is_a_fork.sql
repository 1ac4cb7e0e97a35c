-- A copy has every checkpoint and pending write of every namespace, with the same ids, in
-- the same order; each target channel is a fork of the source's at its head, so no event
-- or snapshot is copied, and completed executions are inherited.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(6);

select pg_temp.lg_put('tap-lg-cs', '', 'cp-' || i, null) from generate_series(1, 3) as i;
select pg_temp.lg_put('tap-lg-cs', 'child:1', 'cp-9');
select pg_temp.lg_write('tap-lg-cs', '', 'cp-3', 'task', 0, 'ch', '{"value": 3}');
select pg_temp.completed('langgraph:tap-lg-cs', 'k', 'tool', '"done"');
create temp table events_before as select count(*) as n from actae.events;
select is(actae.langgraph_copy_thread('tap-lg-cs', 'tap-lg-ct'), 2, 'two namespaces copied');
select is(
    (select array_agg(checkpoint_ns || '/' || checkpoint_id) from actae.langgraph_list('tap-lg-ct')),
    (select array_agg(checkpoint_ns || '/' || checkpoint_id) from actae.langgraph_list('tap-lg-cs')),
    'the same checkpoints in the same order');
select is((select pending_writes from actae.langgraph_get_tuple('tap-lg-ct', '')),
    '[["task", "ch", {"value": 3}]]'::jsonb, 'with the pending writes');
select is((select parent_channel_id from actae.get_channel(pg_temp.lg_channel('tap-lg-ct'))),
    'langgraph:tap-lg-cs', 'the target channel is a fork of the source');
select is((select count(*) from actae.events), (select n from events_before),
    'no event was copied');
select is(pg_temp.probe_claim(pg_temp.lg_channel('tap-lg-ct'), 'k', 'tool'), 'replayed',
    'completed executions are inherited');

select * from finish();
rollback;
