-- An execution that failed (retryably or not) cannot be completed by the same owner:
-- AC409, and the failure stays recorded.
begin;
\ir ../helpers.psql
select plan(4);

create temp table r as select * from actae.claim_execution('tap-cf', 'retry', 't', '{}');
select actae.fail_execution(execution_id, 'timeout', claim_token, true) from r;
select throws_ok($$select actae.complete_execution(execution_id, claim_token, '1') from r$$,
    'AC409', null, 'completing a retryably failed execution is AC409');

create temp table f as select * from actae.claim_execution('tap-cf', 'fatal', 't', '{}');
select actae.fail_execution(execution_id, 'declined', claim_token, false) from f;
select throws_ok($$select actae.complete_execution(execution_id, claim_token, '1') from f$$,
    'AC409', null, 'completing a non-retryably failed execution is AC409');
select is(
    pg_temp.error_of($$select actae.complete_execution(execution_id, claim_token, '1') from f$$)
        -> 'detail' ->> 'error',
    'declined', 'DETAIL carries the stored error');
select results_eq(
    $$select key_name, status::text, result from actae.executions where channel_id = 'tap-cf'
      order by key_name$$,
    $$values ('fatal'::text, 'failed'::text, null::jsonb), ('retry', 'failed', null)$$,
    'both stay failed without a result');

select * from finish();
rollback;
