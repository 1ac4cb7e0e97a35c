-- Another tenant's login cannot record a trace for an execution, even holding its current
-- claim token (leaked): it is AC404, as for an unknown execution, and no trace is stored.
begin;
\ir ../helpers.psql
select plan(2);

select pg_temp.two_tenants('t_trx_1', 't_trx_2', 't_trx_a1', 't_trx_a2');
create temp table c (execution_id uuid, claim_token uuid);
grant insert, select on c to public;
create temp table seen (value jsonb);
grant insert, select on seen to public;

set local session authorization t_trx_a1;
insert into c
select execution_id, claim_token from actae.claim_execution('tap-trx', 'k', 't', '{}');
reset session authorization;

set local session authorization t_trx_a2;
insert into seen
select pg_temp.error_of(format('select actae.set_execution_trace(%L, %L, %L)',
    execution_id, claim_token, '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'))
from c;
reset session authorization;

select is((select value ->> 'sqlstate' from seen), 'AC404',
    'another tenant''s execution with its leaked token is AC404');
select is(
    (select count(*) from actae.execution_traces
     where execution_id = (select execution_id from c)), 0::bigint,
    'no trace was recorded');

select * from finish();
rollback;
