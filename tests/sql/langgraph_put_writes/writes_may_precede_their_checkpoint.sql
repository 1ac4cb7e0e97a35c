-- LangGraph saves a step's writes in the background, so they may arrive before their
-- checkpoint: they are kept and show once the checkpoint is stored.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(2);

select pg_temp.lg_write('tap-lg-early', '', 'cp-1', 'task', 0, 'ch', '{"value": 1}');
select is((select count(*) from actae.langgraph_get_tuple('tap-lg-early', '')), 0::bigint,
    'no checkpoint yet');
select pg_temp.lg_put('tap-lg-early', '', 'cp-1');
select is((select pending_writes from actae.langgraph_get_tuple('tap-lg-early', '', 'cp-1')),
    '[["task", "ch", {"value": 1}]]'::jsonb, 'the early write is a pending write of it');

select * from finish();
rollback;
