-- A completed execution cannot be failed: AC409, the result stays.
begin;
\ir ../helpers.psql
select plan(2);

create temp table claim as select * from actae.claim_execution('tap-fc', 'k', 't', '{}');
select actae.complete_execution(execution_id, claim_token, '"ok"') from claim;
select throws_ok($$select actae.fail_execution(execution_id, 'oops', claim_token) from claim$$,
    'AC409', null, 'failing a completed execution is AC409');
select results_eq(
    $$select status::text, result, error from actae.executions where channel_id = 'tap-fc'$$,
    $$values ('completed'::text, '"ok"'::jsonb, null::text)$$,
    'the completion is kept');

select * from finish();
rollback;
