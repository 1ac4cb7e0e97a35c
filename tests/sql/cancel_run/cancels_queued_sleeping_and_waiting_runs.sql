-- cancel_run ends a queued, a sleeping and a waiting run at once: status cancelled, error
-- 'cancelled: <reason>', no longer due, outcome cancelled; claim_run never hands them out.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(5);

select actae.start_run('tap-ca1-q', 'a', '1', 'tap-q-ca1');
create temp table s as select * from pg_temp.started_claim('tap-ca1-s', 'tap-q-ca1-x');
select actae.sleep_run('tap-ca1-s', (select claim_token from s), 'nap', 600);
create temp table w as select * from pg_temp.started_claim('tap-ca1-w', 'tap-q-ca1-x');
select actae.wait_for_event('tap-ca1-w', (select claim_token from w), 'k', 'approval', 600);
create temp table out as
select c.* from unnest(array['tap-ca1-q', 'tap-ca1-s', 'tap-ca1-w']) as t (id)
cross join lateral actae.cancel_run(t.id, 'duplicate ticket') as c;
select ok((select bool_and(outcome = 'cancelled') from out), 'outcome cancelled for all three');
select ok((select bool_and(status = 'cancelled') from out), 'status cancelled');
select ok((select bool_and(error = 'cancelled: duplicate ticket') from out), 'the reason is kept');
select ok((select bool_and(due_at is null and finished_at is not null) from out), 'over');
update actae.runs set due_at = clock_timestamp() where false;
select is((select count(*) from actae.claim_run('tap-q-ca1', 'w')) +
    (select count(*) from actae.claim_run('tap-q-ca1-x', 'w')), 0::bigint,
    'nothing to claim');

select * from finish();
rollback;
