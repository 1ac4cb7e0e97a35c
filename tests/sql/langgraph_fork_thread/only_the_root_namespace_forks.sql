-- A thread is forked at a checkpoint of its root namespace (its subgraphs come along): a
-- subgraph's namespace is AC400 naming checkpoint_ns, and nothing is written.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(3);

select pg_temp.lg_put('tap-lg-fr', '', 'cp-1');
select pg_temp.lg_put('tap-lg-fr', 'sub:1', 's-1', null, '{"parents": {"": "cp-1"}}');
select pg_temp.lg_digest() as before \gset

select throws_ok(
    $$select actae.langgraph_fork_thread('tap-lg-fr', 'sub:1', 's-1', 'tap-lg-fr2')$$,
    'AC400', 'checkpoint_ns must be '''': a thread is forked at a checkpoint of its root'
    || ' namespace, and its subgraphs'' namespaces come with it',
    'a subgraph namespace is refused');
select is((pg_temp.error_of(
    $$select actae.langgraph_fork_thread('tap-lg-fr', 'sub:1', 's-1', 'tap-lg-fr2')$$)
    -> 'detail' ->> 'argument'), 'checkpoint_ns', 'naming checkpoint_ns');
select is(pg_temp.lg_digest(), :'before', 'nothing written');

select * from finish();
rollback;
