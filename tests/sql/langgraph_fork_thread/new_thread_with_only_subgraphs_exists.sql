-- The new thread must not exist in any namespace: a thread that has only a subgraph
-- namespace (no root) is AC409 naming new_thread_id, and it is left unchanged.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(3);

select pg_temp.lg_put('tap-lg-fx', '', 'cp-1');
select pg_temp.lg_put('tap-lg-fx-taken', 'sub', 's-1');
create temp table taken_before as
select (select string_agg(t::text, ',' order by t::text) from actae.langgraph_threads as t
        where t.thread_id = 'tap-lg-fx-taken') as threads,
    pg_temp.lg_digest() as d;

select throws_ok(
    $$select actae.langgraph_fork_thread('tap-lg-fx', '', 'cp-1', 'tap-lg-fx-taken')$$,
    'AC409', 'thread tap-lg-fx-taken already exists', 'a thread with only a subgraph exists');
select is(
    (select string_agg(t::text, ',' order by t::text) from actae.langgraph_threads as t
        where t.thread_id = 'tap-lg-fx-taken'),
    (select threads from taken_before), 'its namespaces are unchanged (no root added)');
select is(pg_temp.lg_digest(), d, 'nothing was written') from taken_before;

select * from finish();
rollback;
