-- The owner of an attempt records its traceparent under the execution's current fence; a
-- second call for the same attempt replaces it; a reclaim's owner records under the new
-- fence, so each attempt keeps its own row.
begin;
\ir ../helpers.psql
select plan(7);

create temp table c1 as select * from actae.claim_execution('tap-tr1', 'k', 't', '{}');
create temp table t1 as
select * from actae.set_execution_trace(
    (select execution_id from c1), (select claim_token from c1),
    '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
select is(
    (select row(execution_id, channel_id, fence, traceparent)::text from t1),
    (select row(execution_id, 'tap-tr1'::text, 1::bigint,
        '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'::text)::text from c1),
    'the row names the execution, its channel and the current fence'
);
select is(
    (select count(*)::integer from actae.execution_traces
     where execution_id = (select execution_id from c1)), 1, 'one row is stored');

select actae.set_execution_trace(execution_id, claim_token,
    '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01') from c1;
select is(
    (select traceparent from actae.execution_traces
     where execution_id = (select execution_id from c1)),
    '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01',
    'recording again for the same attempt replaces the traceparent');
select is(
    (select count(*)::integer from actae.execution_traces
     where execution_id = (select execution_id from c1)), 1, 'still one row for one attempt');

-- the first worker dies; another reclaims and records its own span
select pg_temp.expire(execution_id) from c1;
create temp table c2 as select * from actae.claim_execution('tap-tr1', 'k', 't', '{}');
select is((select outcome from c2), 'reclaimed', 'the lapsed lease is reclaimed');
select actae.set_execution_trace(execution_id, claim_token,
    '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b8-01') from c2;
select results_eq(
    $$select fence, traceparent from actae.execution_traces
      where execution_id = (select execution_id from c1) order by fence$$,
    $$values (1::bigint, '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01'::text),
             (2::bigint, '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b8-01'::text)$$,
    'each attempt keeps its own traceparent, under its fence');
select ok(
    (select recorded_at from actae.execution_traces where fence = 2
        and execution_id = (select execution_id from c1)) <= clock_timestamp(),
    'recorded_at is set');

select * from finish();
rollback;
