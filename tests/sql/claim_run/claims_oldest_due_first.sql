-- claim_run leases the oldest due run of the queue: status running, attempt and fence + 1, a
-- fresh token, the worker's name, lease = now + lease_seconds, outcome claimed with the run's
-- wake_reason. Other queues and runs not yet due are not touched.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(10);

select actae.start_run('tap-cr1-new', 'a', '1', 'tap-q-cr1');
select actae.start_run('tap-cr1-old', 'a', '2', 'tap-q-cr1');
select actae.start_run('tap-cr1-other', 'a', '3', 'tap-q-cr1-other');
update actae.runs set due_at = due_at - interval '1 minute' where channel_id = 'tap-cr1-old';
create temp table c as select * from actae.claim_run('tap-q-cr1', 'worker-7', null, 30);
select is(channel_id, 'tap-cr1-old', 'the oldest due run first') from c;
select is(outcome, 'claimed', 'outcome claimed') from c;
select is(status, 'running', 'status running') from c;
select is(wake_reason, 'start', 'wake_reason start') from c;
select ok(attempt = 1 and fence = 1, 'attempt 1, fence 1') from c;
select is(claim_token, pg_temp.token_of('tap-cr1-old'), 'the owner gets the stored token') from c;
select is(worker, 'worker-7', 'the worker is recorded') from c;
select ok(lease_expires_at - claimed_at = interval '30 seconds' and due_at = lease_expires_at,
    'lease of 30 s; due again when it lapses') from c;
select is((select channel_id from actae.claim_run('tap-q-cr1', 'w')), 'tap-cr1-new',
    'the next claim gets the next run');
select is((select status from actae.runs where channel_id = 'tap-cr1-other'), 'queued',
    'another queue is untouched');

select * from finish();
rollback;
