-- Missing arguments and malformed traceparents are AC400 naming the argument; nothing is
-- written.
begin;
\ir ../helpers.psql
select plan(9);

create temp table c as select * from actae.claim_execution('tap-tr3', 'k', 't', '{}');
create temp table before as select pg_temp.ledger_digest() as d;

select throws_ok(
    $$select actae.set_execution_trace(null, claim_token,
        '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01') from c$$,
    'AC400', 'execution_id is required', 'execution_id is required');
select throws_ok(
    $$select actae.set_execution_trace(execution_id, null,
        '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01') from c$$,
    'AC400', 'claim_token is required', 'claim_token is required');
select throws_ok(
    $$select actae.set_execution_trace(execution_id, claim_token, null) from c$$,
    'AC400', 'traceparent is required', 'traceparent is required');
select is(
    pg_temp.error_of(format(
        'select actae.set_execution_trace(%L, %L, %L)',
        (select execution_id from c), (select claim_token from c), v.tp)) -> 'detail'
        ->> 'argument',
    'traceparent', v.why)
from (values
    ('not-a-traceparent', 'free text is AC400 naming traceparent'),
    ('00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01', 'upper-case hex is rejected'),
    ('01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'an unknown version is rejected'),
    ('00-00000000000000000000000000000000-b7ad6b7169203331-01', 'an all-zero trace id is rejected'),
    ('00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01', 'an all-zero span id is rejected')
) as v (tp, why);
select is(pg_temp.ledger_digest(), (select d from before), 'nothing was written');

select * from finish();
rollback;
