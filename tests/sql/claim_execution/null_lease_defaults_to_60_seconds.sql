-- A null (or omitted) lease_seconds means the default lease of 60 seconds.
begin;
\ir ../helpers.psql
select plan(4);

create temp table explicit_null as
select * from actae.claim_execution('tap-default', 'a', 't', '{}', null, null);
create temp table omitted as
select * from actae.claim_execution('tap-default', 'b', 't', '{}');

select is(n.lease_expires_at - e.claimed_at, interval '60 seconds',
    'lease_seconds null leases for 60 seconds')
from explicit_null as n inner join actae.executions as e using (execution_id);
select is(e.lease_seconds, 60, 'and stores 60 as the lease for later heartbeats')
from explicit_null as n inner join actae.executions as e using (execution_id);
select is(o.lease_expires_at - e.claimed_at, interval '60 seconds',
    'an omitted lease_seconds leases for 60 seconds')
from omitted as o inner join actae.executions as e using (execution_id);
select ok(
    (select h.lease_expires_at - h.heartbeat_at
     from actae.heartbeat_execution(n.execution_id, n.claim_token) as h)
    between interval '59.9 seconds' and interval '60.1 seconds',
    'a heartbeat without lease_seconds renews the 60-second lease (two clock readings)'
) from explicit_null as n;

select * from finish();
rollback;
