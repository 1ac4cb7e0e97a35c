-- get_execution(execution_id) and get_execution(channel_id, key_name) return the stored
-- execution; an unknown id or key is AC404; bad arguments are AC400.
begin;
\ir ../helpers.psql
select plan(8);

create temp table claim as
select * from actae.claim_execution('tap-get', 'k', 'search', '{"q": 1}');
select is((select key_name from actae.get_execution(c.execution_id)), 'k', 'found by id')
from claim as c;
select is((select execution_id from actae.get_execution('tap-get', 'k')), c.execution_id,
    'found by channel and key') from claim as c;
select results_eq(
    $$select execution_id, channel_id, key_name, tool_name, status, fence, attempt, params,
        fingerprint, lease_expires_at from actae.get_execution('tap-get', 'k')$$,
    $$select execution_id, channel_id, key_name, tool_name, status, fence, attempt, params,
        fingerprint, lease_expires_at from claim$$,
    'the read shows the claim''s fields'
);
select is((select outcome from actae.get_execution('tap-get', 'k')), null,
    'reads carry no outcome');
select throws_ok($$select actae.get_execution(gen_random_uuid())$$, 'AC404', null,
    'an unknown id is AC404');
select throws_ok($$select actae.get_execution('tap-get', 'nope')$$, 'AC404', null,
    'an unknown key is AC404');
select throws_ok($$select actae.get_execution(null::uuid)$$, 'AC400', null,
    'a null id is AC400');
select throws_ok($$select actae.get_execution('tap-get', '')$$, 'AC400', null,
    'an empty key_name is AC400');

select * from finish();
rollback;
