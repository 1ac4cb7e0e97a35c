-- The first wait records event actae.wait (wait_key, event_type, deadline; operation
-- actae.wait:<key>) and parks the run (waiting, due at the deadline, wake_reason timeout,
-- token dead). record_event of that type then makes it due now in the same transaction
-- (wake_reason event) and clears the channel's wake flag; the next claim says event.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(9);

create temp table c as select * from pg_temp.started_claim('tap-we1', 'tap-q-we1');
create temp table w as select * from actae.wait_for_event('tap-we1', (select claim_token from c),
    'approve', 'approval', 172800);
select is(outcome, 'waiting', 'outcome waiting') from w;
select ok(deadline - clock_timestamp() between interval '47 hours 59 minutes'
    and interval '48 hours', 'the deadline is two days away') from w;
select ok((select status = 'waiting' and due_at = w.deadline and wake_reason = 'timeout'
    and claim_token is null and wait_event_type = 'approval'
    from actae.runs where channel_id = 'tap-we1'), 'parked until the deadline') from w;
select is((select wake_event_type from actae.channels where channel_id = 'tap-we1'), 'approval',
    'the channel row carries the wake flag');
select is((select count(*) from actae.claim_run('tap-q-we1', 'w')), 0::bigint, 'not due yet');
select actae.record_event('tap-we1', 'approval', '{"approved": true}');
select ok((select due_at <= clock_timestamp() and wake_reason = 'event'
    from actae.runs where channel_id = 'tap-we1'), 'the event made it due now');
select is((select wake_event_type from actae.channels where channel_id = 'tap-we1'), null,
    'the flag is cleared');
create temp table c2 as select * from actae.claim_run('tap-q-we1', 'w');
select is(wake_reason, 'event', 'claimed with wake_reason event') from c2;
create temp table r as select * from actae.wait_for_event('tap-we1', (select claim_token from c2),
    'approve', 'approval', 172800);
select ok(outcome = 'received' and cursor = 2 and payload = '{"approved": true}',
    'the re-executed wait receives the event (cursor, payload)') from r;

select * from finish();
rollback;
