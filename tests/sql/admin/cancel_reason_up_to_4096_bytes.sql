-- cancel_execution's reason may be 1..4096 bytes: a reason of exactly 4096 bytes (2048
-- two-byte characters) is accepted and returned whole; one byte more is AC400 naming
-- reason with the limit in DETAIL.
begin;
\ir ../helpers.psql
select plan(3);

create temp table c as
select * from actae.claim_execution('tap-cr4096', 'k', 't', '{}');
select is(
    (select octet_length(cancel_reason)
     from actae.cancel_execution((select execution_id from c), repeat('é', 2048))),
    4096, 'a 4096-byte reason is accepted and returned whole'
);
select is(
    pg_temp.error_of(format($$select actae.cancel_execution(%L, %L)$$,
        (select execution_id from c), repeat('é', 2048) || 'x')) -> 'detail',
    '{"argument": "reason", "max_bytes": 4096, "bytes": 4097}'::jsonb,
    'a 4097-byte reason is AC400 naming reason'
);
select is((select cancel_reason from actae.executions where channel_id = 'tap-cr4096'),
    repeat('é', 2048), 'the stored reason is the accepted one');

select * from finish();
rollback;
