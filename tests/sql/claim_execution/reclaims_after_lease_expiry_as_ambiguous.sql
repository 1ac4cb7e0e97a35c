-- When the owner's lease lapses with no recorded outcome, the next claim takes over:
-- outcome reclaimed, a new token, fence + 1, attempt + 1 and ambiguous = true (the lost
-- attempt may or may not have had its effect). Holds for claimed and in_progress alike.
begin;
\ir ../helpers.psql
select plan(13);

create temp table first as
select * from actae.claim_execution('tap-reclaim', 'k', 'charge', '{"amount": 1}');
select pg_temp.expire(execution_id) from first;
create temp table second as
select * from actae.claim_execution('tap-reclaim', 'k', 'charge', '{"amount": 1}');

select is(outcome, 'reclaimed', 'a lapsed claimed lease is reclaimed') from second;
select is(status, 'claimed', 'the reclaimed execution is claimed again') from second;
select is(ambiguous, true, 'reclaiming a lapsed lease is ambiguous') from second;
select is(s.fence, f.fence + 1, 'fence grows by one') from second as s, first as f;
select is(s.attempt, f.attempt + 1, 'attempt grows by one') from second as s, first as f;
select isnt(s.claim_token, null, 'the new owner gets a token') from second as s;
select isnt(s.claim_token, f.claim_token, 'the token is a new one') from second as s, first as f;
select is(s.execution_id, f.execution_id, 'it is the same execution') from second as s, first as f;
select ok(lease_expires_at > clock_timestamp(), 'the new owner holds a live lease') from second;
select is((select claim_token from actae.executions where channel_id = 'tap-reclaim'),
    s.claim_token, 'the stored token is the new owner''s') from second as s;

-- From in_progress (after a heartbeat) as well.
select lives_ok(
    $$select actae.heartbeat_execution(execution_id, claim_token) from second$$,
    'the second owner heartbeats (in_progress)'
);
select pg_temp.expire(execution_id) from second;
create temp table third as
select * from actae.claim_execution('tap-reclaim', 'k', 'charge', '{"amount": 1}');
select results_eq(
    $$select outcome, ambiguous, fence, attempt from third$$,
    $$values ('reclaimed'::text, true, 3::bigint, 3)$$,
    'a lapsed in_progress lease is reclaimed as ambiguous with fence 3, attempt 3'
);
select is(t.claim_token <> s.claim_token, true, 'each reclaim issues a new token')
from third as t, second as s;

select * from finish();
rollback;
