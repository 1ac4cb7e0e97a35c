-- While another owner holds a live lease, a claim does not steal it: outcome in_progress,
-- no token, and the owner's lease_expires_at so the caller knows when to retry.
begin;
\ir ../helpers.psql
select plan(9);

create temp table owner as
select * from actae.claim_execution('tap-busy', 'k', 'crawl', '{"url": "x"}', null, 120);
create temp table other as
select * from actae.claim_execution('tap-busy', 'k', 'crawl', '{"url": "x"}', null, 5);

select is(outcome, 'in_progress', 'outcome is in_progress') from other;
select is(claim_token, null, 'no token for a non-owner') from other;
select is(o.lease_expires_at, w.lease_expires_at, 'the owner''s lease expiry is returned')
from other as o, owner as w;
select is(o.fence, w.fence, 'the fence does not change') from other as o, owner as w;
select is(o.attempt, w.attempt, 'the attempt does not change') from other as o, owner as w;
select is((select claim_token from actae.executions where channel_id = 'tap-busy'),
    w.claim_token, 'the owner keeps its token') from owner as w;

-- After a heartbeat the status is in_progress; the outcome and returned expiry follow it.
create temp table beat as
select * from actae.heartbeat_execution(
    (select execution_id from owner), (select claim_token from owner), 3600
);
create temp table other2 as
select * from actae.claim_execution('tap-busy', 'k', 'crawl', '{"url": "x"}');
select is(outcome, 'in_progress', 'still in_progress after the owner heartbeats') from other2;
select is(o.lease_expires_at, b.lease_expires_at, 'the extended expiry is returned')
from other2 as o, beat as b;
select is(claim_token, null, 'still no token') from other2;

select * from finish();
rollback;
