-- After a retryable failure the next claim takes over at once (no need to wait for the
-- lease): outcome reclaimed, new token, fence + 1, and ambiguous = false because the
-- previous attempt's outcome was recorded. The old error is cleared.
begin;
\ir ../helpers.psql
select plan(8);

create temp table first as
select * from actae.claim_execution('tap-retry', 'k', 'email.send', '{"to": "a@b"}', null, 600);
select lives_ok(
    $$select actae.fail_execution(execution_id, 'smtp timeout', claim_token, true) from first$$,
    'the owner records a retryable failure while its lease is still live'
);
create temp table second as
select * from actae.claim_execution('tap-retry', 'k', 'email.send', '{"to": "a@b"}');

select is(outcome, 'reclaimed', 'a retryable failure is reclaimed') from second;
select is(ambiguous, false, 'it is not ambiguous: the failure was recorded') from second;
select is(s.fence, f.fence + 1, 'fence grows by one') from second as s, first as f;
select is(s.attempt, 2, 'attempt 2') from second as s;
select isnt(s.claim_token, f.claim_token, 'a new token') from second as s, first as f;
select is(status, 'claimed', 'status is claimed again') from second;
select is(error, null, 'the previous error is cleared for the new attempt') from second;

select * from finish();
rollback;
