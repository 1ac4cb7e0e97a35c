-- complete_executions with channel_id: one UPDATE completes every element when all tokens
-- are current (complete_execution is not called); any other batch goes element by element
-- through complete_execution, so outcomes and errors are the single call's: a repeat is a
-- no-op success, a fenced or foreign element raises naming the element and nothing is
-- recorded. track_functions counts the calls, so the test sees which path ran.
begin;
\ir ../helpers.psql
select plan(9);
set local track_functions = 'all';

create function pg_temp.single_calls() returns bigint
language sql as $$
    select coalesce((select calls from pg_stat_xact_user_functions
        where schemaname = 'actae' and funcname = 'complete_execution'), 0)
$$;

select pg_temp.record_steps('tap-cs', 2);
create temp table c as
select row_number() over () as n, b.*
from actae.claim_executions('tap-cs', array['a', 'b', 'c'], array['t', 't', 't'],
    array['{}', '{}', '{}']::jsonb[]) as b;
create temp table done as
select row_number() over () as n, d.*
from actae.complete_executions(
    (select array_agg(execution_id order by n) from c),
    (select array_agg(claim_token order by n) from c),
    array['1', null, '{"x": 3}']::jsonb[], 'tap-cs') as d;

select results_eq(
    $$select d.execution_id, d.status::text, d.result from done as d order by d.n$$,
    $$select c.execution_id, 'completed'::text, r.result
      from c join (values (1, '1'::jsonb), (2, 'null'), (3, '{"x": 3}')) as r (n, result)
          using (n) order by c.n$$,
    'one row per element, in element order, each completed with its result (SQL NULL: null)');
select is(pg_temp.single_calls(), 0::bigint, 'one statement: complete_execution was not called');
select is(
    (select array_agg(distinct completed_clock) from actae.executions
     where channel_id = 'tap-cs'),
    array[(select clock from actae.channels where channel_id = 'tap-cs')],
    'completed_clock is the channel clock, as for the single call');
select is((select array_agg(claim_token order by n) from done),
    (select array_agg(claim_token order by n) from c), 'the caller still sees its tokens');

-- A repeat with the same results: element by element, each a no-op success.
select pg_temp.ledger_digest() as before \gset
select is(
    (select array_agg(status::text) from actae.complete_executions(
        (select array_agg(execution_id order by n) from c),
        (select array_agg(claim_token order by n) from c),
        array['1', null, '{"x": 3}']::jsonb[], 'tap-cs')),
    array['completed', 'completed', 'completed'], 'a repeat is a no-op success');
select is(pg_temp.ledger_digest(), :'before', 'the repeat wrote nothing');

-- A fenced element and an element of another channel: the single call's error, naming the
-- element; the other elements' results are not recorded.
create temp table c2 as
select row_number() over () as n, b.*
from actae.claim_executions('tap-cs', array['d', 'e', 'f'], array['t', 't', 't'],
    array['{}', '{}', '{}']::jsonb[]) as b;
select pg_temp.expire(execution_id) from c2 where n = 3;
select outcome from actae.claim_execution('tap-cs', 'f', 't', '{}');
create temp table other as select * from actae.claim_execution('tap-cs-other', 'x', 't', '{}');
select pg_temp.ledger_digest() as before \gset
select throws_ok(
    $$select * from actae.complete_executions(
        (select array_agg(execution_id order by n) from c2),
        (select array_agg(claim_token order by n) from c2),
        array['1', '2', '3']::jsonb[], 'tap-cs')$$,
    'AC423', null, 'a reclaimed element is lease_lost');
select is(
    (select e ->> 'sqlstate' || ' ' || (e -> 'detail' ->> 'element')
     from pg_temp.error_of($$select * from actae.complete_executions(
        array[(select execution_id from c2 where n = 1), (select execution_id from other)],
        array[(select claim_token from c2 where n = 1), (select claim_token from other)],
        null, 'tap-cs')$$) as e),
    'AC404 2', 'an element of another channel is AC404, naming the element');
select is(pg_temp.ledger_digest(), :'before', 'neither failed batch recorded anything');

select * from finish();
rollback;
