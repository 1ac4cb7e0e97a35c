-- Unknown execution → AC404; null id or token, lease_seconds outside 1..86400 → AC400.
begin;
\ir ../helpers.psql
select plan(7);

create temp table claim as select * from actae.claim_execution('tap-hb5', 'k', 't', '{}');
select throws_ok(
    $$select actae.heartbeat_execution(gen_random_uuid(), gen_random_uuid())$$,
    'AC404', null, 'an unknown execution_id is AC404');
select throws_ok($$select actae.heartbeat_execution(null, claim_token) from claim$$,
    'AC400', 'execution_id is required', 'a null execution_id is AC400');
select throws_ok($$select actae.heartbeat_execution(execution_id, null) from claim$$,
    'AC400', 'claim_token is required', 'a null claim_token is AC400');
select throws_ok($$select actae.heartbeat_execution(execution_id, claim_token, 0) from claim$$,
    'AC400', 'lease_seconds must be between 1 and 86400', 'lease_seconds 0 is AC400');
select throws_ok(
    $$select actae.heartbeat_execution(execution_id, claim_token, 86401) from claim$$,
    'AC400', null, 'lease_seconds 86401 is AC400');
select lives_ok($$select actae.heartbeat_execution(execution_id, claim_token, 1) from claim$$,
    'lease_seconds 1 is accepted');
select lives_ok(
    $$select actae.heartbeat_execution(execution_id, claim_token, 86400) from claim$$,
    'lease_seconds 86400 is accepted');

select * from finish();
rollback;
