-- Null execution_id or claim_token → AC400; a result over 1 MiB → AC400 naming result.
begin;
\ir ../helpers.psql
select plan(4);

create temp table claim as select * from actae.claim_execution('tap-cbad', 'k', 't', '{}');
select throws_ok($$select actae.complete_execution(null, claim_token, '1') from claim$$,
    'AC400', 'execution_id is required', 'a null execution_id is AC400');
select throws_ok($$select actae.complete_execution(execution_id, null, '1') from claim$$,
    'AC400', 'claim_token is required', 'a null claim_token is AC400');
select throws_ok(
    $$select actae.complete_execution(execution_id, claim_token,
        jsonb_build_object('x', repeat('a', 1048560))) from claim$$,
    'AC400', 'result must be at most 1048576 bytes of JSON', 'a result of 1 MiB + 1 byte is AC400');
select lives_ok(
    $$select actae.complete_execution(execution_id, claim_token,
        jsonb_build_object('x', repeat('a', 1048559))) from claim$$,
    'a result of exactly 1 MiB is accepted');

select * from finish();
rollback;
