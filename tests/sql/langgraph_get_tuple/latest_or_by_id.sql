-- Without a checkpoint id the latest (greatest id) checkpoint comes back, with an id that
-- one; each with its state, metadata and parent.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(4);

select pg_temp.lg_put('tap-lg-get', '', 'cp-1', null, '{"step": 0}');
select pg_temp.lg_put('tap-lg-get', '', 'cp-2', 'cp-1', '{"step": 1}');
select is((select checkpoint_id from actae.langgraph_get_tuple('tap-lg-get', '')), 'cp-2',
    'latest');
select is(
    (select (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, metadata)::text
     from actae.langgraph_get_tuple('tap-lg-get', '', 'cp-1')),
    ('tap-lg-get', '', 'cp-1', null, '{"step": 0}'::jsonb)::text, 'by id');
select is((select checkpoint from actae.langgraph_get_tuple('tap-lg-get', '', 'cp-2')),
    '{"id": "cp-2", "channel_values": {}}'::jsonb, 'with its state');
select is((select parent_checkpoint_id from actae.langgraph_get_tuple('tap-lg-get', '', 'cp-2')),
    'cp-1', 'and its parent');

select * from finish();
rollback;
