-- An execution that failed non-retryably is final: every later claim returns outcome
-- failed with the stored error and no token, and nothing changes.
begin;
\ir ../helpers.psql
select plan(7);

create temp table first as
select * from actae.claim_execution('tap-failed', 'k', 'charge', '{"amount": 9}');
select lives_ok(
    $$select actae.fail_execution(execution_id, 'card declined', claim_token, false) from first$$,
    'the owner records a non-retryable failure'
);
create temp table stored_before as select pg_temp.stored(execution_id) as row from first;
create temp table again as
select * from actae.claim_execution('tap-failed', 'k', 'charge', '{"amount": 9}');

select is(outcome, 'failed', 'outcome is failed') from again;
select is(status, 'failed', 'status is failed') from again;
select is(error, 'card declined', 'the stored error is returned') from again;
select is(claim_token, null, 'no token: nobody may run the tool') from again;
select is(retryable, false, 'retryable is false') from again;
select is(pg_temp.stored(f.execution_id), b.row, 'the stored row is unchanged')
from first as f, stored_before as b;

select * from finish();
rollback;
