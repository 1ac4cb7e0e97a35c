-- error must be 1..65536 bytes (empty or null is AC400); null id, token or retryable is
-- AC400.
begin;
\ir ../helpers.psql
select plan(7);

create temp table claim as select * from actae.claim_execution('tap-fbad', 'k', 't', '{}');
select throws_ok($$select actae.fail_execution(execution_id, '', claim_token) from claim$$,
    'AC400', 'error must be 1 to 65536 bytes of text', 'an empty error is AC400');
select throws_ok($$select actae.fail_execution(execution_id, null, claim_token) from claim$$,
    'AC400', null, 'a null error is AC400');
select throws_ok(
    $$select actae.fail_execution(execution_id, repeat('e', 65537), claim_token) from claim$$,
    'AC400', null, 'an error of 65537 bytes is AC400');
select throws_ok($$select actae.fail_execution(null, 'x', claim_token) from claim$$,
    'AC400', 'execution_id is required', 'a null execution_id is AC400');
select throws_ok($$select actae.fail_execution(execution_id, 'x', null) from claim$$,
    'AC400', 'claim_token is required', 'a null claim_token is AC400');
select throws_ok($$select actae.fail_execution(execution_id, 'x', claim_token, null) from claim$$,
    'AC400', 'retryable is required', 'a null retryable is AC400');
select lives_ok(
    $$select actae.fail_execution(execution_id, repeat('e', 65536), claim_token) from claim$$,
    'an error of exactly 65536 bytes is accepted');

select * from finish();
rollback;
