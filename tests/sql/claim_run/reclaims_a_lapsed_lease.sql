-- A running run whose lease lapsed is due: the next claim reclaims it (outcome reclaimed,
-- wake_reason lease_expired, fence and attempt + 1, a new token) and the previous owner's
-- token is dead from then on (AC423). A live lease is never taken.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(6);

create temp table first as select * from pg_temp.started_claim('tap-cr4', 'tap-q-cr4');
select is((select count(*) from actae.claim_run('tap-q-cr4', 'w2')), 0::bigint,
    'a live lease is not taken');
select pg_temp.make_due('tap-cr4');
create temp table second as select * from actae.claim_run('tap-q-cr4', 'w2');
select is(outcome, 'reclaimed', 'outcome reclaimed') from second;
select is(wake_reason, 'lease_expired', 'wake_reason lease_expired') from second;
select ok(s.fence = f.fence + 1 and s.attempt = f.attempt + 1, 'fence and attempt + 1')
from second as s, first as f;
select isnt(s.claim_token, f.claim_token, 'a new token') from second as s, first as f;
select throws_ok($$select actae.heartbeat_run('tap-cr4', claim_token) from first$$, 'AC423',
    null, 'the previous owner''s token is dead');

select * from finish();
rollback;
