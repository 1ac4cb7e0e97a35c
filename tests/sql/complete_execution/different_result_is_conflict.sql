-- Completing again with a different result is AC409 (idempotency_conflict); the first
-- result stays.
begin;
\ir ../helpers.psql
select plan(3);

create temp table claim as select * from actae.claim_execution('tap-diff', 'k', 't', '{}');
select actae.complete_execution(execution_id, claim_token, '{"v": 1}') from claim;
select throws_ok(
    $$select actae.complete_execution(execution_id, claim_token, '{"v": 2}') from claim$$,
    'AC409', null, 'a different result is AC409');
select is(
    pg_temp.error_of($$select actae.complete_execution(execution_id, claim_token, '{"v": 2}')
        from claim$$) -> 'detail' -> 'result',
    '{"v": 1}'::jsonb, 'DETAIL carries the stored result');
select is((select result from actae.executions where channel_id = 'tap-diff'), '{"v": 1}'::jsonb,
    'the first result is kept');

select * from finish();
rollback;
