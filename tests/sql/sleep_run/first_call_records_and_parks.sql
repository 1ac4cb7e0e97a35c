-- The first sleep_run for a key records event actae.sleep (payload sleep_key, seconds,
-- wake_at; operation actae.sleep:<key>) and parks the run: status sleeping, due at the wake
-- time, wake_reason timer, the token dead, outcome sleeping.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(8);

create temp table c as select * from pg_temp.started_claim('tap-sl1', 'tap-q-sl1');
create temp table s as select * from actae.sleep_run('tap-sl1', (select claim_token from c),
    'cool-off', 30);
select is(outcome, 'sleeping', 'outcome sleeping') from s;
select ok(wake_at - clock_timestamp() between interval '29 seconds' and interval '30 seconds',
    'wakes in 30 s') from s;
create temp table r as select * from actae.runs where channel_id = 'tap-sl1';
select is(status, 'sleeping', 'the run sleeps') from r;
select is(due_at, (select wake_at from s), 'due at the wake time') from r;
select ok(wake_reason = 'timer' and claim_token is null and sleep_key = 'cool-off',
    'wake_reason timer, no token, the key is shown') from r;
create temp table ev as select * from actae.list_events('tap-sl1');
select is(event_type, 'actae.sleep', 'one actae.sleep event') from ev;
select is(operation_id, 'actae.sleep:cool-off', 'under operation actae.sleep:<key>') from ev;
select is((payload ->> 'wake_at')::timestamptz, (select wake_at from s),
    'the payload carries the wake time') from ev;

select * from finish();
rollback;
