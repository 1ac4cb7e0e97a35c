-- actae._not_read_committed raises 0A000 naming the function and the transaction's
-- isolation level, in the message (upper case) and as DETAIL facts.
begin;
\ir ../helpers.psql
select plan(1);

select is(
    pg_temp.error_of($$select actae._not_read_committed('tap_function')$$),
    jsonb_build_object(
        'sqlstate', '0A000',
        'message', 'tap_function runs under READ COMMITTED only (this transaction is '
            || upper(current_setting('transaction_isolation')) || ')',
        'detail', jsonb_build_object('function', 'tap_function',
            'transaction_isolation', current_setting('transaction_isolation'))
    ),
    'code, message and DETAIL name the function and the isolation level'
);

select * from finish();
rollback;
