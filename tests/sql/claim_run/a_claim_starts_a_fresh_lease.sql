-- Every claim starts a fresh lease: lease_seconds as given (60 when null, SPEC 3a) and no
-- heartbeat yet, so a reclaim does not show the lost owner's last heartbeat.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql

select plan(4);

select actae.start_run('tap-cr-fresh', 'a', '1', 'tap-q-cr-fresh');
create temp table c as select * from actae.claim_run('tap-q-cr-fresh', 'w1', null, null);
select is(lease_seconds, 60, 'a null lease_seconds is 60') from c;
select is(lease_expires_at - claimed_at, interval '60 seconds', 'a lease of 60 s') from c;
select actae.heartbeat_run('tap-cr-fresh', (select claim_token from c));
select pg_temp.make_due('tap-cr-fresh');
create temp table r as select * from actae.claim_run('tap-q-cr-fresh', 'w2', null, 30);
select is(heartbeat_at, null, 'the reclaim has no heartbeat yet') from r;
select is(lease_expires_at - claimed_at, interval '30 seconds',
    'and the new claim''s lease') from r;

select * from finish();
rollback;
