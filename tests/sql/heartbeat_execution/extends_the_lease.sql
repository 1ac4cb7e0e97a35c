-- A heartbeat by the owner extends the lease to now + lease_seconds (the claim's lease
-- when null), records heartbeat_at, and returns the row with the owner's token.
begin;
\ir ../helpers.psql
select plan(6);

create temp table claim as
select * from actae.claim_execution('tap-hb', 'k', 't', '{}', null, 10);
create temp table beat as
select * from actae.heartbeat_execution(
    (select execution_id from claim), (select claim_token from claim), 3600);

select ok(b.lease_expires_at > c.lease_expires_at, 'the lease is extended')
from beat as b, claim as c;
select ok(b.lease_expires_at - b.heartbeat_at between interval '3599.9 seconds'
    and interval '3600.1 seconds', 'to heartbeat time + the given lease_seconds') from beat as b;
select is(b.claim_token, c.claim_token, 'the owner''s token is returned')
from beat as b, claim as c;
select is(b.fence, c.fence, 'a heartbeat does not change the fence') from beat as b, claim as c;
select is((select lease_expires_at from actae.executions where execution_id = b.execution_id),
    b.lease_expires_at, 'the new expiry is stored') from beat as b;

create temp table beat2 as
select * from actae.heartbeat_execution(
    (select execution_id from claim), (select claim_token from claim));
select ok(b.lease_expires_at - b.heartbeat_at between interval '9.9 seconds'
    and interval '10.1 seconds', 'without lease_seconds it renews the claim''s 10-second lease')
from beat2 as b;

select * from finish();
rollback;
