-- The same key claimed for a different tool is a different operation: AC409, even when
-- the params are identical; the stored row is untouched.
begin;
\ir ../helpers.psql
select plan(4);

create temp table first as
select * from actae.claim_execution('tap-tool', 'k', 'stripe.charge', '{"amount": 1}');
create temp table stored_before as select pg_temp.stored(execution_id) as row from first;

select throws_ok(
    $$select * from actae.claim_execution('tap-tool', 'k', 'stripe.refund', '{"amount": 1}')$$,
    'AC409', null, 'a different tool_name under the same key is AC409'
);
select is(
    pg_temp.error_of(
        $$select * from actae.claim_execution('tap-tool', 'k', 'stripe.refund', '{"amount": 1}')$$
    ) -> 'detail' ->> 'stored_tool_name',
    'stripe.charge', 'DETAIL names the stored tool'
);
select is(pg_temp.stored(f.execution_id), b.row, 'the stored execution is untouched')
from first as f, stored_before as b;
select actae.complete_execution(execution_id, claim_token, '1') from first;
select throws_ok(
    $$select * from actae.claim_execution('tap-tool', 'k', 'stripe.refund', '{"amount": 1}')$$,
    'AC409', null, 'still AC409 once completed: a different tool never replays'
);

select * from finish();
rollback;
