-- cancel_execution of an execution that failed for good (not retryable) is AC409: the
-- failure is final, and its error and finish time stay as recorded.
begin;
\ir ../helpers.psql
select plan(2);

create temp table c as select * from actae.claim_execution('tap-cf', 'k', 't', '{}');
select actae.fail_execution(execution_id, 'boom', claim_token, false) from c;
select throws_ok($$select actae.cancel_execution((select execution_id from c), 'why')$$,
    'AC409', null, 'cancelling a final failure is AC409');
select is((select row(status, error, cancel_requested_at)::text from actae.executions
    where channel_id = 'tap-cf'), '(failed,boom,)', 'the failure stays as recorded');

select * from finish();
rollback;
