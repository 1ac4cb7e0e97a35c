-- Each checkpoint namespace of a thread is its own channel; a thread id or namespace too
-- long for a readable channel name gets 'langgraph:<uuid>'.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(4);

select pg_temp.lg_put('tap-lg-ns', '', 'cp-1');
select pg_temp.lg_put('tap-lg-ns', 'child:1', 'cp-2');
select is(pg_temp.lg_channel('tap-lg-ns', ''), 'langgraph:tap-lg-ns', 'root namespace');
select is(pg_temp.lg_channel('tap-lg-ns', 'child:1'), 'langgraph:tap-lg-ns:child:1',
    'child namespace');
select is((select head_cursor from actae.get_channel('langgraph:tap-lg-ns:child:1')),
    1::bigint, 'the child channel has its own history');
select pg_temp.lg_put(repeat('t', 300), '', 'cp-1');
select matches(pg_temp.lg_channel(repeat('t', 300), ''),
    '^langgraph:[0-9a-f-]{36}$', 'a long thread id gets a uuid channel name');

select * from finish();
rollback;
