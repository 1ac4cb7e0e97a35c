-- A LangGraph thread belongs to the tenant that created it: another tenant can neither
-- write its root namespace nor add a namespace of its own to it (which would block the
-- owner's subgraph of that name and its copy_thread). Both are AC404 and write nothing;
-- the owner's namespaces and copies keep working.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(6);

select pg_temp.two_tenants('t_lgt_1', 't_lgt_2', 't_lgt_a1', 't_lgt_a2');
grant execute on function pg_temp.lg_put(text, text, text, text, jsonb, jsonb) to public;
create temp table seen (what text, value jsonb);
grant insert, select on seen to public;

set local session authorization t_lgt_a1;
select pg_temp.lg_put('tap-lgt', '', 'cp-1');
reset session authorization;
select pg_temp.lg_digest() as before \gset

set local session authorization t_lgt_a2;
insert into seen values
    ('root', pg_temp.error_of($$select pg_temp.lg_put('tap-lgt', '', 'cp-x')$$)),
    ('namespace', pg_temp.error_of($$select pg_temp.lg_put('tap-lgt', 'child:1', 'cp-y')$$));
reset session authorization;

select is((select value ->> 'sqlstate' from seen where what = 'root'), 'AC404',
    'another tenant''s put into the thread is AC404');
select is((select value ->> 'sqlstate' from seen where what = 'namespace'), 'AC404',
    'so is a namespace of its own in that thread');
select is(pg_temp.lg_digest(), :'before', 'neither wrote anything');

set local session authorization t_lgt_a1;
select is((select outcome from pg_temp.lg_put('tap-lgt', 'child:1', 'cp-2')), 'transitioned',
    'the owner adds the namespace');
select ok(actae.langgraph_copy_thread('tap-lgt', 'tap-lgt-copy') > 0, 'and copies the thread');
select is((select count(*) from actae.langgraph_list('tap-lgt-copy')), 2::bigint,
    'the copy has both namespaces'' checkpoints');
reset session authorization;

select * from finish();
rollback;
