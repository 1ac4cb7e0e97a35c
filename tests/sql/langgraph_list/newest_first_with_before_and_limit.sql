-- Checkpoints come newest first (checkpoint id descending); before keeps those with a
-- smaller id; limit bounds the count; checkpoint_id picks one; each row has its pending
-- writes.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(7);

select pg_temp.lg_put('tap-lg-list', '', 'cp-' || i, null, jsonb_build_object('step', i))
from generate_series(1, 4) as i;
select pg_temp.lg_write('tap-lg-list', '', 'cp-2', 'task', 0, 'ch', '{"value": 2}');
select is((select array_agg(checkpoint_id) from actae.langgraph_list('tap-lg-list')),
    array['cp-4', 'cp-3', 'cp-2', 'cp-1'], 'newest first');
select is((select array_agg(checkpoint_id)
           from actae.langgraph_list('tap-lg-list', null, null, 'cp-3')),
    array['cp-2', 'cp-1'], 'before');
select is((select array_agg(checkpoint_id)
           from actae.langgraph_list('tap-lg-list', null, null, 'cp-4', 1)),
    array['cp-3'], 'before and limit');
select is((select pending_writes from actae.langgraph_list('tap-lg-list')
           where checkpoint_id = 'cp-2'), '[["task", "ch", {"value": 2}]]'::jsonb,
    'with pending writes');
select is((select array_agg(checkpoint_id) from actae.langgraph_list('tap-lg-list',
    p_checkpoint_id => 'cp-3')), array['cp-3'], 'checkpoint_id: that one only');
select is((select count(*) from actae.langgraph_list('tap-lg-list', null, null, null, 0)),
    0::bigint, 'limit 0 lists nothing, as LangGraph''s savers');
select throws_ok($$select * from actae.langgraph_list('tap-lg-list', null, null, null, -1)$$,
    'AC400', null, 'a negative limit is AC400');

select * from finish();
rollback;
