-- langgraph_fork_thread on another tenant's thread says exactly what it says for an unknown
-- thread or checkpoint (AC404, the same message), whether the checkpoint exists there or
-- not, so a tenant cannot probe another's checkpoint ids; nothing is written.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(4);

select pg_temp.two_tenants('t_lgf_1', 't_lgf_2', 't_lgf_a1', 't_lgf_a2');
grant execute on function pg_temp.lg_put(text, text, text, text, jsonb, jsonb) to public;
create temp table seen (what text, value jsonb);
grant insert, select on seen to public;

set local session authorization t_lgf_a1;
select pg_temp.lg_put('tap-lgf', '', 'cp-1');
reset session authorization;
select pg_temp.lg_digest() as before \gset

set local session authorization t_lgf_a2;
insert into seen values
    ('exists', pg_temp.error_of(
        $$select actae.langgraph_fork_thread('tap-lgf', '', 'cp-1', 'tap-lgf-x')$$)),
    ('guess', pg_temp.error_of(
        $$select actae.langgraph_fork_thread('tap-lgf', '', 'cp-guess', 'tap-lgf-y')$$));
reset session authorization;

select is((select value ->> 'sqlstate' from seen where what = 'exists'), 'AC404',
    'forking another tenant''s checkpoint is AC404');
select is((select value ->> 'message' from seen where what = 'exists'),
    'thread tap-lgf has no checkpoint cp-1 in namespace ''''',
    'saying the thread has no such checkpoint');
select is((select replace(value ->> 'message', 'cp-guess', 'cp-1') from seen
    where what = 'guess'), (select value ->> 'message' from seen where what = 'exists'),
    'as for a checkpoint id that does not exist');
select is(pg_temp.lg_digest(), :'before', 'nothing written');

select * from finish();
rollback;
