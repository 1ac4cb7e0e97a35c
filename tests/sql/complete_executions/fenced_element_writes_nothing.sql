-- All-or-nothing on errors: when one element is fenced out (AC423, its token is no longer
-- current), or unknown (AC404), or already completed differently (AC409), the batch raises
-- that element's error naming the element, and no other element's result is recorded.
-- The other tokens stay current, so completing the rest again succeeds.
begin;
\ir ../helpers.psql
select plan(8);

create temp table c as
select row_number() over () as n, b.*
from actae.claim_executions('tap-cf', array['a', 'b', 'c'], array['t', 't', 't'],
    array['{}', '{}', '{}']::jsonb[]) as b;
select pg_temp.expire(execution_id) from c where n = 2;
select outcome from actae.claim_execution('tap-cf', 'b', 't', '{}');
create temp table before as select pg_temp.ledger_digest() as digest;

create temp table err as select pg_temp.error_of($$
    select * from actae.complete_executions(
        (select array_agg(execution_id order by n) from c),
        (select array_agg(claim_token order by n) from c),
        array['1', '2', '3']::jsonb[])
$$) as e;
select is(e ->> 'sqlstate', 'AC423', 'the reclaimed element is lease_lost') from err;
select is((e -> 'detail' ->> 'element')::integer, 2, 'DETAIL names the element') from err;
select is(pg_temp.ledger_digest(), (select digest from before),
    'no result of the batch is recorded (element 1 is rolled back)');

select is(
    (select count(*) from actae.complete_executions(
        (select array_agg(execution_id order by n) from c where n <> 2),
        (select array_agg(claim_token order by n) from c where n <> 2),
        array['1', '3']::jsonb[])),
    2::bigint, 'the others complete once the fenced element is left out');

select throws_ok($$select * from actae.complete_executions(
        array['00000000-0000-0000-0000-000000000000'::uuid], array[gen_random_uuid()])$$,
    'AC404', null, 'an unknown execution is AC404');
select throws_ok($$select * from actae.complete_executions(
        (select array[execution_id] from c where n = 1),
        (select array[claim_token] from c where n = 1), array['99']::jsonb[])$$,
    'AC409', null, 'a different result for a completed element is AC409');
select throws_ok($$select * from actae.complete_executions(
        (select array[execution_id, null] from c where n = 1),
        (select array[claim_token, claim_token] from c where n = 1), array['1', '1']::jsonb[])$$,
    'AC400', 'element 2: execution_id is required', 'a null id is AC400 naming the element');
select throws_ok($$select * from actae.complete_executions(
        (select array[execution_id] from c where n = 1), '{}')$$,
    'AC400', 'claim_tokens must have one element per call (1), not 0', 'short claim_tokens');

select * from finish();
rollback;
