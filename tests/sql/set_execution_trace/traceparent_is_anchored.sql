-- The traceparent is the whole argument: a valid one followed by anything ("-extra") is
-- AC400 naming traceparent, and no trace is recorded.
begin;
\ir ../helpers.psql
select plan(2);

create temp table c as select * from actae.claim_execution('tap-tr-anchor', 'k', 't', '{}');
select throws_ok(
    $$select actae.set_execution_trace(execution_id, claim_token,
        '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra') from c$$,
    'AC400', null, 'a traceparent with a suffix is AC400');
select is(
    (select count(*) from actae.execution_traces
     where execution_id = (select execution_id from c)), 0::bigint,
    'no trace was recorded');

select * from finish();
rollback;
