-- Repeating fail_execution with the same token, error and retryable is a no-op success;
-- a different error or retryable flag is AC409.
begin;
\ir ../helpers.psql
select plan(5);

create temp table claim as select * from actae.claim_execution('tap-frep', 'k', 't', '{}');
select actae.fail_execution(execution_id, 'boom', claim_token, false) from claim;
create temp table stored_before as select pg_temp.stored(execution_id) as row from claim;

select is(
    (select status from actae.fail_execution(c.execution_id, 'boom', c.claim_token, false)),
    'failed', 'the identical repeat succeeds') from claim as c;
select is(pg_temp.stored(c.execution_id), b.row, 'and leaves the row unchanged')
from claim as c, stored_before as b;
select throws_ok(
    $$select actae.fail_execution(execution_id, 'other', claim_token, false) from claim$$,
    'AC409', null, 'a different error is AC409');
select throws_ok(
    $$select actae.fail_execution(execution_id, 'boom', claim_token, true) from claim$$,
    'AC409', null, 'a different retryable flag is AC409');
select is(pg_temp.stored(c.execution_id), b.row, 'the first failure is kept')
from claim as c, stored_before as b;

select * from finish();
rollback;
