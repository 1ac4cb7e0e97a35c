-- lease_seconds is 1..86400: 0 and 86401 (and negatives) are AC400 naming the argument;
-- 1 and 86400 are accepted and give exactly that lease.
begin;
\ir ../helpers.psql
select plan(8);

select throws_ok($$select * from actae.claim_execution('tap-lease', 'a', 't', '{}', null, 0)$$,
    'AC400', 'lease_seconds must be between 1 and 86400', 'lease_seconds 0 is AC400');
select throws_ok($$select * from actae.claim_execution('tap-lease', 'a', 't', '{}', null, -5)$$,
    'AC400', null, 'a negative lease_seconds is AC400');
select throws_ok(
    $$select * from actae.claim_execution('tap-lease', 'a', 't', '{}', null, 86401)$$,
    'AC400', null, 'lease_seconds 86401 is AC400');
select is(
    pg_temp.error_of($$select * from actae.claim_execution('tap-lease', 'a', 't', '{}', null,
        86401)$$) -> 'detail' ->> 'argument',
    'lease_seconds', 'DETAIL names lease_seconds');

create temp table one as
select * from actae.claim_execution('tap-lease', 'one', 't', '{}', null, 1);
create temp table day as
select * from actae.claim_execution('tap-lease', 'day', 't', '{}', null, 86400);
select is(outcome, 'claimed', 'lease_seconds 1 is accepted') from one;
select is(o.lease_expires_at - e.claimed_at, interval '1 second', 'and leases for 1 second')
from one as o inner join actae.executions as e using (execution_id);
select is(outcome, 'claimed', 'lease_seconds 86400 is accepted') from day;
select is(d.lease_expires_at - e.claimed_at, interval '86400 seconds',
    'and leases for 86400 seconds')
from day as d inner join actae.executions as e using (execution_id);

select * from finish();
rollback;
