-- actae._langgraph_channel (through langgraph_put): a new namespace of a thread that another
-- tenant holds is AC404 naming the channel the caller's namespace would get
-- ('langgraph:<thread>:<ns>'), never the other tenant's channel id.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(3);

select pg_temp.two_tenants('tn_lgn_a', 'tn_lgn_b', 'tn_lgn_la', 'tn_lgn_lb');
create temp table seen (what text, value jsonb);
grant insert on seen to public;
grant execute on function pg_temp.lg_put(text, text, text, text, jsonb, jsonb) to public;

set local session authorization tn_lgn_la;
select pg_temp.lg_put('tn-lgn', '', 'cp-1');
set local session authorization tn_lgn_lb;
insert into seen values
    ('sub', pg_temp.error_of($$select pg_temp.lg_put('tn-lgn', 'sub', 'cp-1')$$));
reset session authorization;

select is((select value ->> 'sqlstate' from seen where what = 'sub'), 'AC404',
    'a new namespace in another tenant''s thread is AC404');
select is((select value -> 'detail' ->> 'channel_id' from seen where what = 'sub'),
    'langgraph:tn-lgn:sub', '... naming the channel the caller asked for');
select ok(position(pg_temp.lg_channel('tn-lgn') || ' '
    in (select value ->> 'message' from seen where what = 'sub')) = 0,
    '... not the other tenant''s channel');

select * from finish();
rollback;
