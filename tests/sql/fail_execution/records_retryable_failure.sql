-- The owner records a failure: status failed, the error, retryable (true by default),
-- finished_at; the execution can then be reclaimed (see claim_execution).
begin;
\ir ../helpers.psql
select plan(5);

create temp table claim as select * from actae.claim_execution('tap-fail', 'k', 't', '{}');
create temp table failed as
select * from actae.fail_execution(
    (select execution_id from claim), 'upstream 503', (select claim_token from claim));

select is(status, 'failed', 'status is failed') from failed;
select is(error, 'upstream 503', 'the error is returned') from failed;
select is(retryable, true, 'retryable defaults to true') from failed;
select isnt(finished_at, null, 'finished_at is set') from failed;
select results_eq(
    $$select status::text, error, retryable from actae.executions where channel_id = 'tap-fail'$$,
    $$values ('failed'::text, 'upstream 503'::text, true)$$,
    'the failure is stored'
);

select * from finish();
rollback;
