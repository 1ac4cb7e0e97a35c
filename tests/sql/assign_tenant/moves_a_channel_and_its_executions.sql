-- actae.assign_tenant (operator only): moves a channel and its executions to a tenant (a
-- role granted actae_agent); the old tenant's logins then get AC404, the new one's the
-- channel. A role that is no tenant is AC400, an unknown channel AC404; both change nothing.
begin;
\ir ../helpers.psql
select plan(8);

select pg_temp.two_tenants('t_ten_old', 't_ten_new', 't_old', 't_new');
create temp table seen (what text, value jsonb);
grant insert on seen to public;

set local session authorization t_old;
select actae.complete_execution(e.execution_id, e.claim_token, '{"r": 1}')
from actae.claim_execution('moving', 'k', 't', '{}') as e;
reset session authorization;

select is(
    (select channel_id from actae.assign_tenant('moving', 't_ten_new')), 'moving',
    'assign_tenant returns the channel');
select is(
    (select string_agg(distinct tenant::regrole::text, ',') from (
        select tenant from actae.channels where channel_id = 'moving'
        union all select tenant from actae.executions where channel_id = 'moving') as t),
    't_ten_new', 'the channel and its executions now belong to the new tenant');
set local session authorization t_old;
insert into seen values ('old', pg_temp.error_of($$select actae.get_channel('moving')$$));
set local session authorization t_new;
insert into seen select 'new', to_jsonb(e) from actae.claim_execution('moving', 'k', 't', '{}') as e;
reset session authorization;
select is((select value ->> 'sqlstate' from seen where what = 'old'), 'AC404',
    'the old tenant''s login no longer sees it');
select is((select value ->> 'outcome' from seen where what = 'new'), 'replayed',
    'the new tenant''s login replays its keys');

select pg_temp.ledger_digest() as before \gset
select is(pg_temp.error_of($$select actae.assign_tenant('moving', 't_new')$$) ->> 'sqlstate',
    'AC400', 'a login not granted actae_agent is no tenant: AC400');
select is(pg_temp.error_of($$select actae.assign_tenant('moving', 'actae_operator')$$)
    ->> 'sqlstate', 'AC400', 'actae_operator is no tenant: AC400');
select is(pg_temp.error_of($$select actae.assign_tenant('no-such', 't_ten_new')$$)
    ->> 'sqlstate', 'AC404', 'an unknown channel: AC404');
select is(pg_temp.ledger_digest(), :'before', 'the refused calls changed nothing');

select * from finish();
rollback;
