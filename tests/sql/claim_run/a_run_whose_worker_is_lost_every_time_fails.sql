-- A run whose worker is lost every time (SIGKILL, out of memory: its lease lapses and it is
-- reclaimed) is bounded: each reclaim counts the lapse, and the claim that would reclaim it
-- a tenth time in a row counts one failure of the run instead, as a retryable fail_run
-- does: queued again after the backoff while attempts are left (a run that was only on the
-- same worker as the one killing it gets its retry), else failed for good; the lapses start
-- over. The claim then claims the next due run in the same call. A lapsed attempt in which
-- a tool call of the channel completed got somewhere: its lapse starts a new count at 1.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(17);

select pg_temp.started_claim('tap-cr-lost', 'tap-q-cr-lost', 3);
create temp table ninth as select * from pg_temp.lapse('tap-cr-lost', 'tap-q-cr-lost', 9);
select is((select channel_id || ' ' || outcome || ' ' || attempt from ninth),
    'tap-cr-lost reclaimed 10', 'nine lapses in a row: reclaimed each time (attempt 10)');
select is(pg_temp.lapses('tap-cr-lost'), 9, 'each reclaim counts its lapse');
select is((select failures from actae.runs where channel_id = 'tap-cr-lost'), 0,
    'lapses are not failures');

-- The tenth lapse in a row: another run is due after it.
select pg_temp.make_due('tap-cr-lost');
select actae.start_run('tap-cr-next', 'agent', '{}', 'tap-q-cr-lost');
create temp table tenth as select * from actae.claim_run('tap-q-cr-lost', 'w');
select is((select channel_id || ' ' || outcome from tenth), 'tap-cr-next claimed',
    'the claim that would reclaim it a tenth time claims the next due run');
select is((select error from actae.runs where channel_id = 'tap-cr-lost'),
    'the run''s worker was lost 10 times in a row (its lease lapsed each time with no tool'
    || ' call completed: killed, out of memory or stalled)',
    'its error says the worker was lost 10 times in a row');
select ok((select status = 'queued' and failures = 1 and lapses = 0 and claim_token is null
        and lease_expires_at is null and wake_reason = 'retry' and finished_at is null
        and due_at > actae._now()
    from actae.runs where channel_id = 'tap-cr-lost'),
    'one failure (of 3): queued again after the backoff, lapses start over');
select throws_ok($$select actae.complete_run('tap-cr-lost', claim_token, '1') from ninth$$,
    'AC423', null, 'the lost owner''s token is dead');
select is((select count(*) from actae.claim_run('tap-q-cr-lost', 'w')), 0::bigint,
    'nothing more is due before the backoff');

-- With no attempt left, the tenth lapse ends the run as failed.
select pg_temp.started_claim('tap-cr-last', 'tap-q-cr-last', 1);
create temp table last_ninth as
    select * from pg_temp.lapse('tap-cr-last', 'tap-q-cr-last', 9);
select pg_temp.make_due('tap-cr-last');
select is((select count(*) from actae.claim_run('tap-q-cr-last', 'w')), 0::bigint,
    'no attempt left: the tenth lapse claims nothing');
select ok((select status = 'failed' and failures = 1 and lapses = 0 and due_at is null
        and finished_at is not null
    from actae.runs where channel_id = 'tap-cr-last'),
    'and ends the run as failed (failures 1 of 1)');
select throws_ok($$select actae.complete_run('tap-cr-last', claim_token, '1') from last_ninth$$,
    'AC409', null, 'the lost owner''s token cannot complete it any more');

-- claim_runs: the same in one call and one transaction.
select pg_temp.started_claim('tap-cr-lost2', 'tap-q-cr-lost2');
select pg_temp.lapse('tap-cr-lost2', 'tap-q-cr-lost2', 9);
select pg_temp.make_due('tap-cr-lost2');
select actae.start_run('tap-cr-next2', 'agent', '{}', 'tap-q-cr-lost2');
select is((select string_agg(channel_id, ',') from actae.claim_runs('tap-q-cr-lost2', 'w', 5)),
    'tap-cr-next2', 'claim_runs skips the lost run too');
select is((select status || ' ' || failures from actae.runs where channel_id = 'tap-cr-lost2'),
    'queued 1', 'and counts its failure');

-- Progress: a tool call completed in the lapsed attempt starts the count again at 1.
select pg_temp.started_claim('tap-cr-busy', 'tap-q-cr-busy');
select pg_temp.lapse('tap-cr-busy', 'tap-q-cr-busy', 8);
select pg_temp.completed('tap-cr-busy', 'step-9', 'search', '{}');
select pg_temp.lapse('tap-cr-busy', 'tap-q-cr-busy', 1);
select is(pg_temp.lapses('tap-cr-busy'), 1,
    'a lapse after a tool call completed in the attempt counts as the first in a row');
select actae.claim_execution('tap-cr-busy', 'step-9', 'search', '{}');  -- replayed
select pg_temp.lapse('tap-cr-busy', 'tap-q-cr-busy', 8);
select is((select status || ' ' || lapses from actae.runs where channel_id = 'tap-cr-busy'),
    'running 9', 'a replayed tool call is no progress: the count goes on');
select pg_temp.lapse('tap-cr-busy', 'tap-q-cr-busy', 1);
select is((select status || ' ' || failures from actae.runs where channel_id = 'tap-cr-busy'),
    'queued 1', 'and counts a failure at 10');
select is((select count(*)::integer from actae.runs where channel_id like 'tap-cr-%'
        and status = 'running' and lapses > 0), 0, 'no run is left counting');

select * from finish();
rollback;
