-- A lapse counts as the first in a row (lapses 1) only when a tool call of the run's channel
-- completed during the lapsed attempt, at or after its claim: a tool call that failed is
-- no progress, and one completed at the very instant of the claim is. The clock is pinned
-- for the test (actae._now replaced inside its transaction), so claim and completion share
-- one instant.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql

select plan(3);

create or replace function actae._now() returns timestamptz language sql volatile
as $$ select '2030-01-01 00:00:00+00'::timestamptz $$;

-- A failed tool call in the lapsed attempt.
select pg_temp.started_claim('tap-cr-prog-f', 'tap-q-cr-prog-f');
select pg_temp.lapse('tap-cr-prog-f', 'tap-q-cr-prog-f', 3);
select actae.fail_execution(c.execution_id, 'tool broke', c.claim_token, false)
from actae.claim_execution('tap-cr-prog-f', 'step-1', 'search', '{}') as c;
select pg_temp.lapse('tap-cr-prog-f', 'tap-q-cr-prog-f', 1);
select is(pg_temp.lapses('tap-cr-prog-f'), 4,
    'a tool call that failed in the lapsed attempt is no progress: the count goes on');

-- A tool call completed at the instant of the claim.
select pg_temp.started_claim('tap-cr-prog-c', 'tap-q-cr-prog-c');
select pg_temp.lapse('tap-cr-prog-c', 'tap-q-cr-prog-c', 3);
select is((select claimed_at from actae.runs where channel_id = 'tap-cr-prog-c'),
    '2030-01-01 00:00:00+00'::timestamptz, 'claimed at the pinned instant');
select pg_temp.completed('tap-cr-prog-c', 'step-1', 'search', '{}');
select pg_temp.lapse('tap-cr-prog-c', 'tap-q-cr-prog-c', 1);
select is(pg_temp.lapses('tap-cr-prog-c'), 1,
    'a tool call completed at the claim''s instant is progress: the count starts at 1');

select * from finish();
rollback;
