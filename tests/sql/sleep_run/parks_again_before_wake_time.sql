-- Claimed before its wake time (e.g. woken early by a retry or reclaim), the same key parks
-- the run again until the recorded wake time, without recording a second event.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(3);

create temp table c as select * from pg_temp.started_claim('tap-sl3', 'tap-q-sl3');
create temp table s1 as select * from actae.sleep_run('tap-sl3', (select claim_token from c),
    'nap', 600);
select pg_temp.make_due('tap-sl3');
create temp table c2 as select * from actae.claim_run('tap-q-sl3', 'w');
create temp table s2 as select * from actae.sleep_run('tap-sl3', (select claim_token from c2),
    'nap', 5);
select is(outcome, 'sleeping', 'parks again') from s2;
select is(s2.wake_at, s1.wake_at, 'until the first recorded wake time') from s1, s2;
select is((select head_cursor from actae.get_channel('tap-sl3')), 1::bigint,
    'one actae.sleep event only');

select * from finish();
rollback;
