-- langgraph_copy_thread with another tenant's source thread answers as for an unknown
-- source: 0 namespaces copied, nothing written, no error naming that tenant's channel. A
-- target held by another tenant is AC409, as one's own existing thread.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(4);

select pg_temp.two_tenants('tn_lgc_a', 'tn_lgc_b', 'tn_lgc_la', 'tn_lgc_lb');
create temp table seen (what text, value jsonb);
grant insert on seen to public;
grant execute on function pg_temp.lg_put(text, text, text, text, jsonb, jsonb) to public;

set local session authorization tn_lgc_la;
select pg_temp.lg_put('tn-lgc-a', '', 'cp-1');
set local session authorization tn_lgc_lb;
select pg_temp.lg_put('tn-lgc-b', '', 'cp-1');
reset session authorization;
create temp table digest_before as select pg_temp.lg_digest() as d;
grant select on digest_before to public;
set local session authorization tn_lgc_lb;
insert into seen values
    ('other', pg_temp.error_of($$select actae.langgraph_copy_thread('tn-lgc-a', 'tn-lgc-new')$$)),
    ('other_count', to_jsonb(actae.langgraph_copy_thread('tn-lgc-a', 'tn-lgc-new2'))),
    ('unknown_count', to_jsonb(actae.langgraph_copy_thread('tn-lgc-nobody', 'tn-lgc-new3'))),
    ('target', pg_temp.error_of($$select actae.langgraph_copy_thread('tn-lgc-b', 'tn-lgc-a')$$));
reset session authorization;

select is((select value from seen where what = 'other'), null,
    'another tenant''s source raises nothing');
select is((select value from seen where what = 'other_count'),
    (select value from seen where what = 'unknown_count'),
    '... and copies what an unknown source copies (0)');
select is(pg_temp.lg_digest(), d, 'nothing was written') from digest_before;
select is((select value ->> 'sqlstate' from seen where what = 'target'), 'AC409',
    'a target thread held by another tenant is AC409, as one''s own');

select * from finish();
rollback;
