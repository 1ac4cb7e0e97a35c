-- The batch set paths and tenants: claim_executions into another tenant's channel, and
-- complete_executions with another tenant's channel_id (its own tokens, stolen), are AC404
-- for element 1 and write nothing; the owner's batch goes through.
begin;
\ir ../helpers.psql
select plan(4);

select pg_temp.two_tenants('t_bt_1', 't_bt_2', 't_bt_a1', 't_bt_a2');
create temp table seen (what text, value jsonb);
create temp table owned (n bigint, execution_id uuid, claim_token uuid);
grant insert, select on seen, owned to public;

set local session authorization t_bt_a1;
insert into owned
select row_number() over (), b.execution_id, b.claim_token
from actae.claim_executions('bt-run', array['a', 'b'], array['t', 't'],
    array['{}', '{}']::jsonb[]) as b;
reset session authorization;
select pg_temp.ledger_digest() as before \gset

set local session authorization t_bt_a2;
insert into seen values
    ('claim', pg_temp.error_of($$select * from actae.claim_executions('bt-run',
        array['c', 'd'], array['t', 't'], array['{}', '{}']::jsonb[])$$)),
    ('complete', pg_temp.error_of($$select * from actae.complete_executions(
        (select array_agg(execution_id order by n) from owned),
        (select array_agg(claim_token order by n) from owned),
        array['1', '2']::jsonb[], 'bt-run')$$));
reset session authorization;

select is((select value ->> 'sqlstate' from seen where what = 'claim') || ' '
    || (select value ->> 'message' from seen where what = 'claim'),
    'AC404 channel bt-run does not exist',
    'a batch claim in another tenant''s channel is AC404, as for an unknown channel');
select is((select value ->> 'sqlstate' from seen where what = 'complete') || ' '
    || (select value -> 'detail' ->> 'element' from seen where what = 'complete'),
    'AC404 1', 'completing another tenant''s executions (with their tokens) is AC404, element 1');
select is(pg_temp.ledger_digest(), :'before', 'neither wrote anything');

set local session authorization t_bt_a1;
insert into seen select 'owner', to_jsonb(array_agg(c.status order by o.n))
from owned as o, actae.complete_executions(
    (select array_agg(execution_id order by n) from owned),
    (select array_agg(claim_token order by n) from owned),
    array['1', '2']::jsonb[], 'bt-run') as c
where c.execution_id = o.execution_id;
reset session authorization;
select is((select value from seen where what = 'owner'), '["completed", "completed"]'::jsonb,
    'the owner completes its batch');

select * from finish();
rollback;
