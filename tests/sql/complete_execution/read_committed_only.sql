-- A completion must see the forks and appends it waited for (the channel clock it stores
-- decides what forks inherit), which a REPEATABLE READ or SERIALIZABLE snapshot taken
-- before the wait does not: complete_execution and complete_executions refuse such a
-- transaction (0A000 naming the function and the level) and record nothing. A claim that
-- would take ownership refuses it too (claim_execution/takes_ownership_under_read_
-- committed_only.sql), so the claimed rows here are written directly.
begin isolation level repeatable read;
\ir ../helpers.psql
select plan(4);

select channel_id as created from actae.create_channel('tap-rr') \gset
insert into actae.executions (
    channel_id, key_name, tool_name, params, fingerprint, status, claim_token, fence,
    attempt, lease_seconds, lease_expires_at, created_at, claimed_at
)
select 'tap-rr', k, 't', '{}', pg_temp.sha256_hex('{}'), 'claimed', gen_random_uuid(), 1, 1,
    60, now() + interval '1 minute', now(), now()
from unnest(array['k', 'k2']) as k;
select execution_id as id, claim_token as token from actae.executions
where channel_id = 'tap-rr' and key_name = 'k' \gset
select execution_id as id2, claim_token as token2 from actae.executions
where channel_id = 'tap-rr' and key_name = 'k2' \gset

select is(pg_temp.error_of(format($$select actae.complete_execution(%L, %L, '1', 'tap-rr')$$,
    :'id', :'token')) ->> 'sqlstate', '0A000', 'complete_execution refuses REPEATABLE READ');
select is(pg_temp.error_of(format($$select actae.complete_execution(%L, %L, '1', 'tap-rr')$$,
    :'id', :'token')) ->> 'message',
    'complete_execution runs under READ COMMITTED only (this transaction is REPEATABLE READ)',
    'naming the function and the level');
select is(pg_temp.error_of(format(
    $$select * from actae.complete_executions(array[%L, %L]::uuid[], array[%L, %L]::uuid[],
        array['1', '2']::jsonb[], 'tap-rr')$$, :'id', :'id2', :'token', :'token2'))
    ->> 'sqlstate', '0A000', 'so does complete_executions');
select is((select string_agg(status, ',' order by key_name) from actae.executions
    where channel_id = 'tap-rr'), 'claimed,claimed', 'nothing was completed');

select * from finish();
rollback;
