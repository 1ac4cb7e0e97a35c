-- heartbeat_run extends the owner's lease (and due_at) to now + lease_seconds (the claim's
-- when null), records heartbeat_at, keeps the fence, and reports cancel_requested once an
-- operator asked for cancellation.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(6);

create temp table c as select * from pg_temp.started_claim('tap-hr1', 'tap-q-hr1');
create temp table b as select * from actae.heartbeat_run('tap-hr1', (select claim_token from c), 600);
select ok(b.lease_expires_at - b.heartbeat_at = interval '600 seconds', 'lease of 600 s') from b;
select is(b.due_at, b.lease_expires_at, 'due again when the new lease lapses') from b;
select is(b.fence, c.fence, 'the fence is unchanged') from b, c;
select is(b.cancel_requested, false, 'no cancellation yet') from b;
select actae.cancel_run('tap-hr1', 'stop');
create temp table b2 as select * from actae.heartbeat_run('tap-hr1', (select claim_token from c));
select is(cancel_requested, true, 'the next heartbeat says cancel_requested') from b2;
select ok(lease_expires_at - heartbeat_at = interval '60 seconds',
    'without lease_seconds the claim''s lease (60 s) is renewed') from b2;

select * from finish();
rollback;
