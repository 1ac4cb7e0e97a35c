-- All-or-nothing on errors: when one element raises (here AC409, a key reused for a
-- different operation, in the middle of the batch), the batch raises that element's error
-- with its SQLSTATE, the element's 1-based position in DETAIL and the message, and the
-- elements before it are rolled back: the ledger is exactly as before the call.
begin;
\ir ../helpers.psql
select plan(10);

create temp table done as select * from actae.claim_execution('tap-cc', 'k2', 't', '{"a": 1}');
select actae.complete_execution(execution_id, claim_token, '1') from done;
create temp table before as select pg_temp.ledger_digest() as digest;

create temp table err as select pg_temp.error_of($$
    select * from actae.claim_executions('tap-cc', array['k1', 'k2', 'k3'],
        array['t', 't', 't'], array['{}', '{"a": 2}', '{}']::jsonb[])
$$) as e;

select is(e ->> 'sqlstate', 'AC409', 'the conflicting element''s SQLSTATE') from err;
select is((e -> 'detail' ->> 'element')::integer, 2, 'DETAIL names the element') from err;
select is(e -> 'detail' ->> 'key_name', 'k2', 'DETAIL keeps the single call''s facts') from err;
select ok(e ->> 'message' like 'element 2: key k2 in channel tap-cc %', 'the message names it')
from err;
select is(pg_temp.ledger_digest(), (select digest from before),
    'nothing was written: the first element''s claim is rolled back');

select throws_ok($$select * from actae.claim_executions('tap-cc', array['k1', 'k3'],
        array['t', 't'], array['{}', '[]']::jsonb[])$$,
    'AC400', 'element 2: params must be a JSON object', 'an element''s bad argument is AC400');
select is(pg_temp.ledger_digest(), (select digest from before), 'and writes nothing');
-- A null element (bool_and skips nulls: it must not pass the set path's checks) is that
-- element's AC400, as the single call's, in a channel new or not.
select throws_ok($$select * from actae.claim_executions('tap-cc-new', array['k1', 'k2'],
        array['t', null], array['{}', '{}']::jsonb[])$$,
    'AC400', 'element 2: tool_name must be 1 to 256 bytes of text',
    'a null tool_name element is AC400 naming it');
select throws_ok($$select * from actae.claim_executions('tap-cc-new', array['k1', 'k2'],
        array['t', 't'], array['{}', null]::jsonb[])$$,
    'AC400', 'element 2: params must be a JSON object', 'so is a null params element');
select throws_ok($$select * from actae.claim_executions('tap-cc-new', array[null, 'k2'],
        array['t', 't'], array['{}', '{}']::jsonb[])$$,
    'AC400', 'element 1: key_name must be 1 to 1024 bytes of text',
    'and a null key_name element');

select * from finish();
rollback;
