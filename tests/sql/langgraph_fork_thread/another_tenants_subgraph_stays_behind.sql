-- A fork takes along only the caller's own subgraph namespaces: a namespace of the same
-- thread in a channel of another tenant (here a superuser's, one that would qualify as a
-- persistent subgraph of the step) stays behind, and the fork of the root succeeds.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(3);

select pg_temp.two_tenants('t_lgfo_1', 't_lgfo_2', 't_lgfo_a1', 't_lgfo_a2');
grant execute on function pg_temp.lg_put(text, text, text, text, jsonb, jsonb) to public;
create temp table seen (value jsonb);
grant insert, select on seen to public;

set local session authorization t_lgfo_a1;
select pg_temp.lg_put('tap-lgfo', '', 'cp-1');
reset session authorization;
-- the superuser (a member of every tenant) adds a namespace of its own to the thread
select pg_temp.lg_put('tap-lgfo', 'sub', 's-1', null, '{"parents": {"": "cp-1"}}');

set local session authorization t_lgfo_a1;
insert into seen select pg_temp.error_of(
    $$select actae.langgraph_fork_thread('tap-lgfo', '', 'cp-1', 'tap-lgfo-new')$$);
reset session authorization;

select is((select value from seen), null, 'the owner forks the thread');
select is(
    (select array_agg(t.checkpoint_ns) from actae.langgraph_threads as t
        where t.thread_id = 'tap-lgfo-new'),
    array[''], 'only the root namespace is forked');
select is((select checkpoint_id from actae.langgraph_get_tuple('tap-lgfo-new', '')), 'cp-1',
    'at cp-1');

select * from finish();
rollback;
