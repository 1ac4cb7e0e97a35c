-- A fork at root checkpoint C takes only the subgraph namespaces needed to resume there, so
-- its cost does not grow with the steps before C: a namespace with task ids ('node:<task>',
-- nested or not) of an earlier step, whose subgraph finished, stays behind; a persistent
-- namespace (a checkpointer=True subgraph: no task ids, numeric call counters kept) with a
-- checkpoint of C's step or an earlier one comes along, cut at its last such checkpoint; one
-- only of later steps stays behind.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(6);

select pg_temp.lg_put('tap-lg-fe', '', 'cp-1');
select pg_temp.lg_put('tap-lg-fe', 'sub:t1', 's1-1', null, '{"parents": {"": "cp-1"}}');
select pg_temp.lg_put('tap-lg-fe', 'sub:t1|in:u1', 'i1-1', null,
    '{"parents": {"": "cp-1", "sub:t1": "s1-1"}}');
select pg_temp.lg_put('tap-lg-fe', 'memo', 'm-1', null, '{"parents": {"": "cp-1"}}');
select pg_temp.lg_put('tap-lg-fe', 'memo|1', 'n-1', null, '{"parents": {"": "cp-1"}}');
select pg_temp.lg_put('tap-lg-fe', '', 'cp-2', 'cp-1');
select pg_temp.lg_put('tap-lg-fe', 'sub:t2', 's2-1', null, '{"parents": {"": "cp-2"}}');
select pg_temp.lg_put('tap-lg-fe', '', 'cp-3', 'cp-2');
select pg_temp.lg_put('tap-lg-fe', 'sub:t3', 's3-1', null, '{"parents": {"": "cp-3"}}');
select pg_temp.lg_put('tap-lg-fe', 'memo', 'm-2', 'm-1', '{"parents": {"": "cp-3"}}');
select pg_temp.lg_put('tap-lg-fe', 'late', 'l-1', null, '{"parents": {"": "cp-3"}}');
select count(*) as source_rows from actae.langgraph_list('tap-lg-fe') \gset

select lives_ok($$select actae.langgraph_fork_thread('tap-lg-fe', '', 'cp-2', 'tap-lg-fe2')$$,
    'fork at cp-2');
select is(
    (select array_agg(t.checkpoint_ns order by t.checkpoint_ns) from actae.langgraph_threads as t
        where t.thread_id = 'tap-lg-fe2'),
    array['', 'memo', 'memo|1', 'sub:t2'],
    'the step''s subgraph and the persistent ones; not the finished ones of an earlier step'
    || ' (nested or not), nor one only of a later step');
select is(
    (select count(*) from actae.channels as c where c.parent_channel_id in (
        select t.channel_id from actae.langgraph_threads as t where t.thread_id = 'tap-lg-fe')),
    4::bigint, 'one fork_channel per namespace taken, none for those left behind');
select is((select array_agg(checkpoint_id) from actae.langgraph_list('tap-lg-fe2', 'memo')),
    array['m-1'], 'a persistent namespace is cut before a later step''s checkpoint');
select is((select checkpoint_id from actae.langgraph_get_tuple('tap-lg-fe2', 'sub:t2')),
    's2-1', 'the step''s subgraph comes along');
select is((select count(*) from actae.langgraph_list('tap-lg-fe')), :'source_rows'::bigint,
    'the source thread is unchanged');

select * from finish();
rollback;
