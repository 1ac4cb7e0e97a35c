-- Re-executed after the wake time, the same key answers elapsed: nothing parked, the caller
-- keeps its token, no new event; the first recording wins (a different seconds is ignored).
-- A zero-second sleep is elapsed at once.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(6);

create temp table c as select * from pg_temp.started_claim('tap-sl2', 'tap-q-sl2');
select actae.sleep_run('tap-sl2', (select claim_token from c), 'nap', 60);
select is((select wake_reason from actae.claim_run('tap-q-sl2', 'w')), null,
    'not claimable before the wake time');
select pg_temp.make_due('tap-sl2');
create temp table c2 as select * from actae.claim_run('tap-q-sl2', 'w');
select is(wake_reason, 'timer', 'claimed again with wake_reason timer') from c2;
select pg_temp.age_parks('tap-sl2');
create temp table s as select * from actae.sleep_run('tap-sl2', (select claim_token from c2),
    'nap', 9999);
select is(outcome, 'elapsed', 'the elapsed sleep passes through') from s;
select is((select status from actae.runs where channel_id = 'tap-sl2'), 'running',
    'the run keeps running with the same token');
select is((select head_cursor from actae.get_channel('tap-sl2')), 1::bigint, 'no new event');
select is((select outcome from actae.sleep_run('tap-sl2', (select claim_token from c2), 'zero',
    0)), 'elapsed', 'a zero-second sleep is elapsed at once');

select * from finish();
rollback;
