-- The arrays must be one per element: a null or missing array, arrays of different
-- lengths, a multi-dimensional array, more than 1000 elements or a dedup_fields entry that
-- is not a JSON array are AC400 naming the argument, and write nothing.
begin;
\ir ../helpers.psql
select plan(9);

create temp table before as select pg_temp.ledger_digest() as digest;

select throws_ok($$select * from actae.claim_executions('tap-cm', null, '{t}', '{"{}"}')$$,
    'AC400', 'key_names is required', 'null key_names');
select throws_ok($$select * from actae.claim_executions('tap-cm', '{a}', null, '{"{}"}')$$,
    'AC400', 'tool_names is required', 'null tool_names');
select throws_ok($$select * from actae.claim_executions('tap-cm', '{a,b}', '{t}', '{"{}","{}"}')$$,
    'AC400', 'tool_names must have one element per call (2), not 1', 'short tool_names');
select throws_ok($$select * from actae.claim_executions('tap-cm', '{a}', '{t}', '{"{}","{}"}')$$,
    'AC400', 'params must have one element per call (1), not 2', 'long params');
select throws_ok($$select * from actae.claim_executions('tap-cm', '{a}', '{t}', '{"{}"}',
        '{null,null}')$$,
    'AC400', 'dedup_fields must have one element per call (1), not 2', 'long dedup_fields');
select throws_ok($$select * from actae.claim_executions('tap-cm', '{{a,b},{c,d}}',
        '{t,t,t,t}', '{"{}","{}","{}","{}"}')$$,
    'AC400', 'key_names must be a one-dimensional array', 'a two-dimensional array');
select throws_ok($$select * from actae.claim_executions('tap-cm',
        array(select 'k' || g from generate_series(1, 1001) as g),
        array_fill('t'::text, array[1001]), array_fill('{}'::jsonb, array[1001]))$$,
    'AC400', 'key_names must be between 0 and 1000', '1001 elements');
select throws_ok($$select * from actae.claim_executions('tap-cm', '{a}', '{t}',
        '{"{\"x\": 1}"}', '{"\"x\""}')$$,
    'AC400', 'element 1: dedup_fields must hold a JSON array of field names or null',
    'a dedup_fields entry that is not an array');
select is(pg_temp.ledger_digest(), (select digest from before), 'nothing was written');

select * from finish();
rollback;
