-- The owner cannot heartbeat an execution it already completed or failed: AC409.
begin;
\ir ../helpers.psql
select plan(4);

create temp table done as select * from actae.claim_execution('tap-hb4', 'done', 't', '{}');
select actae.complete_execution(execution_id, claim_token, '"ok"') from done;
select throws_ok($$select actae.heartbeat_execution(execution_id, claim_token) from done$$,
    'AC409', null, 'heartbeat on a completed execution is AC409');
select is(
    pg_temp.error_of($$select actae.heartbeat_execution(execution_id, claim_token) from done$$)
        -> 'detail' ->> 'status',
    'completed', 'DETAIL carries the status');

create temp table retry as select * from actae.claim_execution('tap-hb4', 'retry', 't', '{}');
select actae.fail_execution(execution_id, 'boom', claim_token, true) from retry;
select throws_ok($$select actae.heartbeat_execution(execution_id, claim_token) from retry$$,
    'AC409', null, 'heartbeat on a (retryably) failed execution is AC409');

create temp table fatal as select * from actae.claim_execution('tap-hb4', 'fatal', 't', '{}');
select actae.fail_execution(execution_id, 'boom', claim_token, false) from fatal;
select throws_ok($$select actae.heartbeat_execution(execution_id, claim_token) from fatal$$,
    'AC409', null, 'heartbeat on a non-retryably failed execution is AC409');

select * from finish();
rollback;
