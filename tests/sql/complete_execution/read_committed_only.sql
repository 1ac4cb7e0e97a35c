-- A completion must see the forks and appends it waited for (the channel clock it stores
-- decides what forks inherit), which a REPEATABLE READ or SERIALIZABLE snapshot taken
-- before the wait does not: complete_execution and complete_executions refuse such a
-- transaction (0A000 naming the function and the level) and record nothing. Claims still
-- work there.
begin isolation level repeatable read;
\ir ../helpers.psql
select plan(5);

select c.execution_id as id, c.claim_token as token
from actae.claim_execution('tap-rr', 'k', 't', '{}') as c \gset
select c.execution_id as id2, c.claim_token as token2
from actae.claim_execution('tap-rr', 'k2', 't', '{}') as c \gset

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
select is((select outcome from actae.claim_execution('tap-rr', 'k3', 't', '{}')), 'claimed',
    'a claim works under REPEATABLE READ');

select * from finish();
rollback;
