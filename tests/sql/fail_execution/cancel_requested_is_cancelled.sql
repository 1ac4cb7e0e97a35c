-- actae.fail_execution on an execution whose cancellation was requested ends it as status
-- cancelled, not retryable, whatever retryable says; the error is the caller's; repeating
-- the call is a no-op; a claim then returns outcome failed with status cancelled.
begin;
\ir ../helpers.psql
select plan(7);

create temp table c as
select * from actae.claim_execution('tap-fail-cancel', 'k', 'charge', '{"amount": 5}');
select actae.cancel_execution((select execution_id from c), 'customer asked');
create temp table f as
select * from actae.fail_execution(
    (select execution_id from c), 'cancelled: customer asked', (select claim_token from c), true
);
select is(status, 'cancelled', 'the owner''s failure of a cancel-requested execution') from f;
select is(retryable, false, 'is not retryable although retryable = true was passed') from f;
select is(error, 'cancelled: customer asked', 'the error is the caller''s') from f;
select is(
    (select status from actae.fail_execution(
        (select execution_id from c), 'cancelled: customer asked', (select claim_token from c),
        true)),
    'cancelled', 'repeating the same call is a no-op success'
);
select is(
    pg_temp.error_of(format('select actae.fail_execution(%L, %L, %L, true)',
        (select execution_id from c), 'something else', (select claim_token from c)))
        ->> 'sqlstate',
    'AC409', 'failing it again differently is AC409'
);
create temp table again as
select * from actae.claim_execution('tap-fail-cancel', 'k', 'charge', '{"amount": 5}');
select is(outcome, 'failed', 'a later claim returns outcome failed') from again;
select is(status, 'cancelled', 'with status cancelled') from again;

select * from finish();
rollback;
