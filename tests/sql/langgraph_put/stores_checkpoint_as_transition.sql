-- A checkpoint is a state transition of the thread's channel 'langgraph:<thread_id>': event
-- 'langgraph.checkpoint' with {checkpoint_id, parent_checkpoint_id, metadata}, the
-- checkpoint as the state snapshot, operation_id 'checkpoint:<id>', and an index row.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(8);

create temp table put as
select * from pg_temp.lg_put('tap-lg-put', '', 'cp-1', null, '{"step": 0}',
    '{"id": "cp-1", "channel_values": {"x": {"value": 1}}}');
select is((select outcome from put), 'transitioned', 'outcome transitioned');
select is((select channel_id from put), 'langgraph:tap-lg-put', 'the channel is named after the thread');
select is((select (cursor, version)::text from put), '(1,1)', 'cursor 1, version 1');
select is(
    (select (event_type, payload, operation_id)::text from actae.list_events('langgraph:tap-lg-put')),
    ('langgraph.checkpoint',
     '{"metadata": {"step": 0}, "checkpoint_id": "cp-1", "parent_checkpoint_id": null}'::jsonb,
     'checkpoint:cp-1')::text,
    'the event carries ids and metadata, under operation_id checkpoint:<id>');
select is((select state from actae.get_state('langgraph:tap-lg-put')),
    '{"id": "cp-1", "channel_values": {"x": {"value": 1}}}'::jsonb,
    'the checkpoint is the state snapshot');
select is(
    (select (data_channel_id, cursor, version, metadata)::text from actae.langgraph_checkpoints
     where channel_id = 'langgraph:tap-lg-put' and checkpoint_id = 'cp-1'),
    ('langgraph:tap-lg-put', 1, 1, '{"step": 0}'::jsonb)::text, 'the index row points at them');
select pg_temp.lg_put('tap-lg-put', '', 'cp-2', 'cp-1');
select is((select parent_checkpoint_id from actae.langgraph_checkpoints
    where checkpoint_id = 'cp-2' and channel_id = 'langgraph:tap-lg-put'), 'cp-1',
    'the parent is recorded');
select is((select state_version from actae.get_channel('langgraph:tap-lg-put')), 2::bigint,
    'each checkpoint is the next version');

select * from finish();
rollback;
