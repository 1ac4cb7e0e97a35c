-- start_run creates the run (queued, due now, wake_reason start, attempt 0, fence 0) and its
-- channel (version 0, head 0); a null input is stored as JSON null, a null queue is
-- 'default'; no claim token is shown.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(9);

create temp table s as select * from actae.start_run('tap-sr1', 'refund', '{"order": 7}', 'tap-q-sr1');
select is(outcome, 'started', 'outcome started') from s;
select is(status, 'queued', 'status queued') from s;
select is(wake_reason, 'start', 'wake_reason start') from s;
select ok(due_at <= clock_timestamp() and due_at >= created_at, 'due now') from s;
select is(claim_token, null, 'no claim token') from s;
select ok(attempt = 0 and fence = 0 and failures = 0 and max_attempts = 5,
    'attempt 0, fence 0, failures 0, max_attempts defaults to 5') from s;
select is((select head_cursor from actae.get_channel('tap-sr1')), 0::bigint,
    'the channel exists, empty');
select is((select input from actae.start_run('tap-sr1b', 'a', null)), 'null'::jsonb,
    'a null input is JSON null');
select is((select queue from actae.start_run('tap-sr1c', 'a', '1', null)), 'default',
    'a null queue is default');

select * from finish();
rollback;
