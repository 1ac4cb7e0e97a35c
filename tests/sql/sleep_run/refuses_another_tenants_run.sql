-- sleep_run and wait_for_event refuse another tenant's run even with its current
-- claim_token: AC404 as for an unknown run, nothing written, whether the key is new or
-- already recorded (a recorded sleep or wait appends nothing, so the refusal cannot rest on
-- the append); the runs stay running and the owner's tenant still sleeps its run.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql

select plan(7);

select pg_temp.two_tenants('t_slten_1', 't_slten_2', 't_sla1', 't_sla2');
create temp table seen (what text, value jsonb);
grant insert on seen to public;
-- Tenant 1: run S has recorded sleep 'nap', run W wait 'k'; both parked, due, reclaimed.
set local session authorization t_sla1;
select actae.start_run('tap-slten-s', 'agent', '{}', 'tap-q-slten-s');
select actae.start_run('tap-slten-w', 'agent', '{}', 'tap-q-slten-w');
select actae.sleep_run(r.channel_id, r.claim_token, 'nap', 3600)
from actae.claim_run('tap-q-slten-s', 'w1') as r;
select actae.wait_for_event(r.channel_id, r.claim_token, 'k', 'approval', 3600)
from actae.claim_run('tap-q-slten-w', 'w1') as r;
reset session authorization;
select pg_temp.make_due('tap-slten-s');
select pg_temp.make_due('tap-slten-w');
set local session authorization t_sla1;
select actae.claim_run('tap-q-slten-s', 'w1');
select actae.claim_run('tap-q-slten-w', 'w1');
reset session authorization;
select pg_temp.token_of('tap-slten-s') as stoken, pg_temp.token_of('tap-slten-w') as wtoken \gset
select pg_temp.ledger_digest() as before \gset
select jsonb_agg(to_jsonb(r) order by channel_id) as runs_before from actae.runs as r
where channel_id like 'tap-slten-%' \gset
set local session authorization t_sla2;
insert into seen values
    ('sleep recorded', pg_temp.error_of(format(
        $$select actae.sleep_run('tap-slten-s', %L, 'nap', 3600)$$, :'stoken'))),
    ('sleep new', pg_temp.error_of(format(
        $$select actae.sleep_run('tap-slten-s', %L, 'other', 60)$$, :'stoken'))),
    ('wait recorded', pg_temp.error_of(format(
        $$select actae.wait_for_event('tap-slten-w', %L, 'k', 'approval', 3600)$$, :'wtoken'))),
    ('wait new', pg_temp.error_of(format(
        $$select actae.wait_for_event('tap-slten-w', %L, 'k2', 'approval', 60)$$, :'wtoken')));
reset session authorization;
select is((select value ->> 'sqlstate' from seen where what = 'sleep recorded'), 'AC404',
    'another tenant''s sleep_run of a recorded sleep, current token: AC404');
select is((select value ->> 'sqlstate' from seen where what = 'sleep new'), 'AC404',
    'and of a new sleep');
select is((select value ->> 'sqlstate' from seen where what = 'wait recorded'), 'AC404',
    'another tenant''s wait_for_event of a recorded wait, current token: AC404');
select is((select value ->> 'sqlstate' from seen where what = 'wait new'), 'AC404',
    'and of a new wait');
select is(pg_temp.ledger_digest(), :'before', 'the refused calls recorded nothing');
select is((select jsonb_agg(to_jsonb(r) order by channel_id) from actae.runs as r
    where channel_id like 'tap-slten-%'), :'runs_before'::jsonb, 'the runs are untouched');
set local session authorization t_sla1;
select is((select outcome from actae.sleep_run('tap-slten-s', :'stoken', 'nap', 3600)),
    'sleeping', 'the owner''s tenant parks its run again');
reset session authorization;

select * from finish();
rollback;
