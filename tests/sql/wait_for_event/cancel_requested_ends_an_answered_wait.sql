-- A cancel request ends the run at its next wait even when that wait is already answered
-- (received or timed_out): outcome cancelled, the run is over with error
-- 'cancelled: <reason>'. Without a cancel request the answers are unchanged.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(9);

-- A received wait re-executed after the cancel request.
create temp table c as select * from pg_temp.started_claim('tap-we8', 'tap-q-we8');
select actae.wait_for_event('tap-we8', (select claim_token from c), 'k', 'approval', 600);
select actae.record_event('tap-we8', 'approval', '{"approved": true}');
create temp table c2 as select * from actae.claim_run('tap-q-we8', 'w');
select is((select outcome from actae.cancel_run('tap-we8', 'stop')), 'cancel_requested',
    'the running run gets a cancel request');
select is((select outcome from actae.wait_for_event('tap-we8', (select claim_token from c2), 'k',
    'approval', 600)), 'cancelled', 'a received wait of a cancel-requested run answers cancelled');
select ok((select status = 'cancelled' and error = 'cancelled: stop' and due_at is null
    from actae.runs where channel_id = 'tap-we8'), 'the run ended as cancelled');
select is((select wake_event_type from actae.channels where channel_id = 'tap-we8'), null,
    'no wake flag is left on the channel');

-- A wait that times out at once (zero timeout) after the cancel request.
create temp table t as select * from pg_temp.started_claim('tap-we9', 'tap-q-we9');
select actae.cancel_run('tap-we9', 'halt');
select is((select outcome from actae.wait_for_event('tap-we9', (select claim_token from t), 'z',
    'approval', 0)), 'cancelled', 'a timed-out wait of a cancel-requested run answers cancelled');
select is((select status from actae.get_run('tap-we9')), 'cancelled', 'that run is over too');

-- Unchanged without a cancel request.
create temp table n as select * from pg_temp.started_claim('tap-we10', 'tap-q-we10');
select is((select outcome from actae.wait_for_event('tap-we10', (select claim_token from n), 'z',
    'approval', 0)), 'timed_out', 'without a cancel request a zero timeout times out');
select actae.wait_for_event('tap-we10', (select claim_token from n), 'r', 'approval', 600);
select actae.record_event('tap-we10', 'approval', '{"approved": true}');
create temp table n2 as select * from actae.claim_run('tap-q-we10', 'w');
select is((select outcome from actae.wait_for_event('tap-we10', (select claim_token from n2),
    'r', 'approval', 600)), 'received', 'without a cancel request the wait is received');
select is((select status from actae.get_run('tap-we10')), 'running', 'and the run keeps running');

select * from finish();
rollback;
