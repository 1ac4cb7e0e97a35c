-- The lease lapses claim_run counts are lapses in a row: every orderly end of an attempt
-- (a sleep or a wait that parks the run, a retryable fail_run, complete_run, fail_run for
-- good, an end as cancelled) sets the count back to 0, so a run that sleeps, waits or
-- retries between lost workers is never ended for them; a heartbeat does not (a worker
-- that heartbeats, then is killed every time, is still lost every time).
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(11);

-- Sleep: 9 lapses, a sleep, 9 more lapses: still running.
select pg_temp.started_claim('tap-lr-sleep', 'tap-q-lr-sleep');
select pg_temp.lapse('tap-lr-sleep', 'tap-q-lr-sleep', 9);
select actae.sleep_run('tap-lr-sleep', pg_temp.token_of('tap-lr-sleep'), 'nap', 3600);
select is(pg_temp.lapses('tap-lr-sleep'), 0, 'a sleep that parks the run resets the count');
select pg_temp.make_due('tap-lr-sleep');
select is((select c.wake_reason || ' ' || r.lapses from actae.claim_run('tap-q-lr-sleep', 'w')
    as c join actae.runs as r using (channel_id)), 'timer 0',
    'the woken run is claimed with the count at 0');
select pg_temp.lapse('tap-lr-sleep', 'tap-q-lr-sleep', 9);
select is((select status || ' ' || lapses from actae.runs where channel_id = 'tap-lr-sleep'),
    'running 9', 'nine lapses after it: still running');

-- Wait.
select pg_temp.started_claim('tap-lr-wait', 'tap-q-lr-wait');
select pg_temp.lapse('tap-lr-wait', 'tap-q-lr-wait', 9);
select actae.wait_for_event('tap-lr-wait', pg_temp.token_of('tap-lr-wait'), 'ok', 'approval',
    600);
select is(pg_temp.lapses('tap-lr-wait'), 0, 'a wait that parks the run resets the count');

-- A retryable failure, then one for good.
select pg_temp.started_claim('tap-lr-fail', 'tap-q-lr-fail', 3);
select pg_temp.lapse('tap-lr-fail', 'tap-q-lr-fail', 9);
select actae.fail_run('tap-lr-fail', pg_temp.token_of('tap-lr-fail'), 'boom', true);
select is((select status || ' ' || lapses from actae.runs where channel_id = 'tap-lr-fail'),
    'queued 0', 'a retryable failure requeues the run with the count at 0');
select pg_temp.make_due('tap-lr-fail');
select actae.claim_run('tap-q-lr-fail', 'w');
select pg_temp.lapse('tap-lr-fail', 'tap-q-lr-fail', 9);
select actae.fail_run('tap-lr-fail', pg_temp.token_of('tap-lr-fail'), 'boom', false);
select is((select status || ' ' || lapses from actae.runs where channel_id = 'tap-lr-fail'),
    'failed 0', 'a failure for good: the count is 0');

-- Completed.
select pg_temp.started_claim('tap-lr-done', 'tap-q-lr-done');
select pg_temp.lapse('tap-lr-done', 'tap-q-lr-done', 9);
select actae.complete_run('tap-lr-done', pg_temp.token_of('tap-lr-done'), '1');
select is((select status || ' ' || lapses from actae.runs where channel_id = 'tap-lr-done'),
    'completed 0', 'complete_run: the count is 0');

-- Cancelled at the reclaim of a lapsed run.
select pg_temp.started_claim('tap-lr-cancel', 'tap-q-lr-cancel');
select pg_temp.lapse('tap-lr-cancel', 'tap-q-lr-cancel', 9);
select actae.cancel_run('tap-lr-cancel', 'stop');
select pg_temp.make_due('tap-lr-cancel');
select is((select count(*) from actae.claim_run('tap-q-lr-cancel', 'w')), 0::bigint,
    'a lapsed run whose cancellation was requested is not handed out');
select is((select status || ' ' || lapses from actae.runs where channel_id = 'tap-lr-cancel'),
    'cancelled 0', 'it ends as cancelled (not failed), the count at 0');

-- Heartbeats do not reset it.
select pg_temp.started_claim('tap-lr-beat', 'tap-q-lr-beat');
select pg_temp.lapse('tap-lr-beat', 'tap-q-lr-beat', 9);
select actae.heartbeat_run('tap-lr-beat', pg_temp.token_of('tap-lr-beat'));
select is(pg_temp.lapses('tap-lr-beat'), 9, 'a heartbeat leaves the count as it is');
select pg_temp.lapse('tap-lr-beat', 'tap-q-lr-beat', 1);
select is((select status || ' ' || failures from actae.runs where channel_id = 'tap-lr-beat'),
    'queued 1', 'so a worker lost after heartbeating, ten times in a row, counts a failure');

select * from finish();
rollback;
