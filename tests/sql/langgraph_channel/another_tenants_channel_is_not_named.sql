-- Writing into another tenant's thread is AC404 naming the channel the caller's own
-- namespace would get ('langgraph:<thread_id>[:<checkpoint_ns>]'), never the other
-- tenant's channel id (a uuid one when the thread id is too long for a readable name):
-- the same answer as for a new namespace of that thread.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(5);

select pg_temp.two_tenants('t_lgn_1', 't_lgn_2', 't_lgn_a1', 't_lgn_a2');
grant execute on function pg_temp.lg_put(text, text, text, text, jsonb, jsonb) to public;
grant execute on function pg_temp.lg_write(text, text, text, text, integer, text, jsonb, text)
to public;
create temp table seen (what text, value jsonb);
grant insert, select on seen to public;
select 'tap-lgn-' || repeat('y', 300) as thread \gset

set local session authorization t_lgn_a1;
select pg_temp.lg_put(:'thread', '', 'cp-1');
reset session authorization;
select pg_temp.lg_channel(:'thread') as channel \gset

set local session authorization t_lgn_a2;
insert into seen
select c.what, pg_temp.error_of(format(c.statement, :'thread'))
from (values
    ('put', $$select pg_temp.lg_put(%L, '', 'cp-2')$$),
    ('put_writes', $$select pg_temp.lg_write(%L, '', 'cp-1', 't', 0, 'c', '{"value": 1}')$$),
    ('langgraph_channel', $$select actae.langgraph_channel(%L)$$),
    ('new namespace', $$select pg_temp.lg_put(%L, 'sub:1', 'cp-2')$$)
) as c (what, statement);
reset session authorization;

select ok(:'channel' like 'langgraph:________-____-____-____-____________',
    'the owner''s channel has a uuid name');
select is(
    (select array_agg(value ->> 'message' order by what) from seen
        where what in ('langgraph_channel', 'put', 'put_writes')),
    array_fill(format('channel langgraph:%s does not exist', :'thread'), array[3]),
    'put, put_writes and langgraph_channel name the caller''s would-be channel');
select is((select value ->> 'message' from seen where what = 'new namespace'),
    format('channel langgraph:%s:sub:1 does not exist', :'thread'),
    'as a new namespace does');
select is((select count(*) from seen where value::text like '%' || :'channel' || '%'),
    0::bigint, 'no answer holds the owner''s channel id');
select is((select count(*) from seen where value ->> 'sqlstate' = 'AC404'), 4::bigint,
    'all are AC404');

select * from finish();
rollback;
