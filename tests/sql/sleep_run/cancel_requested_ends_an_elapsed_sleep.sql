-- A cancel request ends the run at its next sleep even when that sleep has elapsed (passed
-- through on re-execution, or zero seconds): outcome cancelled, the run is over with error
-- 'cancelled: <reason>'. Without a cancel request the same sleeps still answer elapsed and
-- the run keeps running.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(8);

-- An elapsed sleep re-executed after the cancel request.
create temp table c as select * from pg_temp.started_claim('tap-sl7', 'tap-q-sl7');
select actae.sleep_run('tap-sl7', (select claim_token from c), 'nap', 60);
select pg_temp.age_parks('tap-sl7');
select pg_temp.make_due('tap-sl7');
create temp table c2 as select * from actae.claim_run('tap-q-sl7', 'w');
select is((select outcome from actae.cancel_run('tap-sl7', 'stop')), 'cancel_requested',
    'the running run gets a cancel request');
select is((select outcome from actae.sleep_run('tap-sl7', (select claim_token from c2), 'nap',
    60)), 'cancelled', 'an elapsed sleep of a cancel-requested run answers cancelled');
select ok((select status = 'cancelled' and error = 'cancelled: stop' and due_at is null
    from actae.runs where channel_id = 'tap-sl7'), 'the run ended as cancelled');
select throws_ok($$select actae.sleep_run('tap-sl7', (select claim_token from c2), 'nap', 60)$$,
    'AC409', null, 'the run is over: its sleeps are refused');

-- A zero-second sleep (elapsed at once) after the cancel request.
create temp table z as select * from pg_temp.started_claim('tap-sl8', 'tap-q-sl8');
select actae.cancel_run('tap-sl8', 'halt');
select is((select outcome from actae.sleep_run('tap-sl8', (select claim_token from z), 'zero',
    0)), 'cancelled', 'a zero-second sleep of a cancel-requested run answers cancelled');
select is((select status from actae.get_run('tap-sl8')), 'cancelled', 'that run is over too');

-- Unchanged without a cancel request.
create temp table n as select * from pg_temp.started_claim('tap-sl9', 'tap-q-sl9');
select is((select outcome from actae.sleep_run('tap-sl9', (select claim_token from n), 'zero',
    0)), 'elapsed', 'without a cancel request a zero-second sleep is elapsed');
select is((select status from actae.get_run('tap-sl9')), 'running', 'and the run keeps running');

select * from finish();
rollback;
