-- cancel_execution checks its arguments in order before reading anything: execution_id
-- (AC400 naming execution_id when null, even when the reason is bad too), then reason
-- (1..4096 bytes), then the channel_id when given.
begin;
\ir ../helpers.psql
select plan(4);

select is(pg_temp.error_of($$select actae.cancel_execution(null, null)$$)
    -> 'detail' ->> 'argument', 'execution_id', 'both missing: the error names execution_id');
select is(pg_temp.error_of($$select actae.cancel_execution(null, '')$$)
    -> 'detail' ->> 'argument', 'execution_id', 'a missing id before an empty reason');
select is(pg_temp.error_of(format('select actae.cancel_execution(%L, %L)',
    gen_random_uuid(), repeat('x', 4097))) -> 'detail' ->> 'argument', 'reason',
    'a 4097-byte reason is AC400 naming reason');
select is(pg_temp.error_of(format('select actae.cancel_execution(%L, null, %L)',
    gen_random_uuid(), '')) -> 'detail' ->> 'argument', 'reason',
    'the reason before the channel_id');

select * from finish();
rollback;
