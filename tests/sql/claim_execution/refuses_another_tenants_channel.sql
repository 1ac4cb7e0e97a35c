-- claim_execution and tenants: a key of another tenant's channel (new, completed or
-- lapsed) and a claim into another tenant's channel id are AC404 with exactly the message
-- and DETAIL of an unknown channel, and write nothing; a second login of the same tenant
-- replays the owner's result; the channel and its executions record the tenant, the
-- execution its writer.
begin;
\ir ../helpers.psql
select plan(9);

create role t_ten_1 nologin;
create role t_ten_2 nologin;
grant actae_agent to t_ten_1, t_ten_2;
create role t_a1 login;
create role t_a1b login;
create role t_a2 login;
grant t_ten_1 to t_a1, t_a1b;
grant t_ten_2 to t_a2;
grant execute on function pg_temp.error_of(text) to public;
create temp table seen (what text, value jsonb);
grant insert on seen to public;

set local session authorization t_a1;
select claim_token is not null from actae.claim_execution('t1-run', 'charge', 'charge', '{"a": 1}');
select actae.complete_execution(e.execution_id, e.claim_token, '{"mine": true}')
from actae.claim_execution('t1-run', 'done', 'charge', '{"a": 1}') as e;
reset session authorization;
update actae.executions set lease_expires_at = now() - interval '1 hour'
where channel_id = 't1-run' and key_name = 'charge';
select pg_temp.ledger_digest() as before \gset

set local session authorization t_a2;
insert into seen values
    ('new key', pg_temp.error_of($$select actae.claim_execution('t1-run', 'evil', 'charge', '{}')$$)),
    ('completed key', pg_temp.error_of($$select actae.claim_execution('t1-run', 'done', 'charge', '{"a": 1}')$$)),
    ('lapsed key', pg_temp.error_of($$select actae.claim_execution('t1-run', 'charge', 'charge', '{"a": 1}')$$)),
    ('unknown channel', pg_temp.error_of($$select actae.get_channel('t1-run-x')$$));
set local session authorization t_a1b;
insert into seen select 'same tenant', to_jsonb(e) from actae.claim_execution(
    't1-run', 'done', 'charge', '{"a": 1}') as e;
reset session authorization;

select is((select value ->> 'sqlstate' from seen where what = 'new key'), 'AC404',
    'a new key in another tenant''s channel is AC404');
select is((select value from seen where what = 'completed key'),
    (select value from seen where what = 'new key'),
    'a completed key of another tenant answers the same (no replay, no result)');
select is((select value from seen where what = 'lapsed key'),
    (select value from seen where what = 'new key'),
    'a lapsed key of another tenant answers the same (no reclaim)');
select is((select value ->> 'message' from seen where what = 'new key'),
    replace((select value ->> 'message' from seen where what = 'unknown channel'),
        't1-run-x', 't1-run'),
    'the message is the one of an unknown channel');
select is((select value -> 'detail' from seen where what = 'new key'),
    '{"channel_id": "t1-run"}'::jsonb, 'and so is the DETAIL');
select is(pg_temp.ledger_digest(), :'before', 'the refused claims wrote nothing');
select is((select value ->> 'outcome' from seen where what = 'same tenant'), 'replayed',
    'a second login of the same tenant replays the owner''s result');
select is(
    (select c.tenant::regrole::text || ' ' || e.tenant::regrole::text || ' '
        || e.written_by::regrole::text
     from actae.channels as c inner join actae.executions as e using (channel_id)
     where c.channel_id = 't1-run' and e.key_name = 'done'),
    't_ten_1 t_ten_1 t_a1', 'channel and execution record the tenant, the execution its writer');
select is(
    (select count(*) from actae.channels where channel_id = 't1-run-x'), 0::bigint,
    'nothing was created for the unknown channel');

select * from finish();
rollback;
