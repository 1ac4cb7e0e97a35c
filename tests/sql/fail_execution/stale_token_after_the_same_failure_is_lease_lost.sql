-- The no-op repeat of fail_execution is the owner's only: after another worker reclaimed
-- the execution and failed it, the previous owner's failure with the very same error and
-- retryable flag is AC423 (the token is checked before the content), not a success, and
-- writes nothing.
begin;
\ir ../helpers.psql
select plan(4);

create temp table old as select * from actae.claim_execution('tap-fsame', 'k', 't', '{}');
select pg_temp.expire(execution_id) from old;
create temp table new as select * from actae.claim_execution('tap-fsame', 'k', 't', '{}');
select actae.fail_execution(execution_id, 'timeout', claim_token, true) from new;
create temp table stored_before as select pg_temp.stored(execution_id) as row from new;

select throws_ok(
    $$select actae.fail_execution(execution_id, 'timeout', claim_token, true) from old$$,
    'AC423', null, 'the previous owner''s identical failure is AC423');
select is(pg_temp.stored(n.execution_id), b.row, 'and writes nothing')
from new as n, stored_before as b;
select is(
    (select status from actae.fail_execution(n.execution_id, 'timeout', n.claim_token, true)),
    'failed', 'the new owner''s identical repeat is the no-op success') from new as n;
select throws_ok(
    $$select actae.fail_execution(execution_id, 'timeout', claim_token, false) from old$$,
    'AC423', null, 'and the previous owner''s token stays AC423 whatever the content');

select * from finish();
rollback;
