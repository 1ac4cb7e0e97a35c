-- An unknown thread or checkpoint is AC404, an existing new thread AC409; nothing written.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(4);

select pg_temp.lg_put('tap-lg-fe', '', 'cp-1');
select pg_temp.lg_put('tap-lg-fe-2', '', 'cp-1');
create temp table digest_before as select pg_temp.lg_digest() as d;
select throws_ok($$select actae.langgraph_fork_thread('tap-lg-nobody', '', 'cp-1', 'x')$$,
    'AC404', null, 'unknown thread');
select throws_ok($$select actae.langgraph_fork_thread('tap-lg-fe', '', 'cp-9', 'x')$$,
    'AC404', null, 'unknown checkpoint');
select throws_ok($$select actae.langgraph_fork_thread('tap-lg-fe', '', 'cp-1', 'tap-lg-fe-2')$$,
    'AC409', null, 'existing new thread');
select is(pg_temp.lg_digest(), d, 'nothing was written') from digest_before;

select * from finish();
rollback;
