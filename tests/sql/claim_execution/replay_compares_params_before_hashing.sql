-- claim_execution's common replay (own completed row, same tool, no dedup fields, equal
-- params) hashes nothing: a row's fingerprint is always that of its stored params. Any other
-- call is decided by the fingerprint as before: params that differ outside the dedup fields
-- replay, params that differ otherwise are AC409, params that cannot have a fingerprint are
-- AC400, another tool name is AC409. Params equal as jsonb but not as text (1.0 and 1.00:
-- different fingerprints) are AC409 here as in a fork of the channel.
begin;
\ir ../helpers.psql
select plan(11);

select actae.complete_execution(e.execution_id, e.claim_token, '{"r": 1}')
from actae.claim_execution('tap-rp', 'k', 'search', '{"q": "pg", "page": 1}') as e;
select actae.complete_execution(e.execution_id, e.claim_token, '{"r": 2}')
from actae.claim_execution('tap-rp', 'd', 'search', '{"q": "pg", "page": 1}', array['q']) as e;

select is(
    (select outcome || ' ' || result::text
     from actae.claim_execution('tap-rp', 'k', 'search', '{"page": 1,  "q": "pg"}')),
    'replayed {"r": 1}', 'equal params (other key order and spacing) replay');
select throws_ok(
    $$select * from actae.claim_execution('tap-rp', 'k', 'search', '{"q": "pg", "page": 2}')$$,
    'AC409', null, 'params that differ change the fingerprint: AC409');
select is(
    (select outcome || ' ' || result::text
     from actae.claim_execution('tap-rp', 'd', 'search', '{"q": "pg", "page": 9}', array['q'])),
    'replayed {"r": 2}', 'params that differ outside the dedup fields replay (same fingerprint)');
select throws_ok(
    $$select * from actae.claim_execution('tap-rp', 'k', 'search', null)$$,
    'AC400', 'params must be a JSON object', 'SQL NULL params on a completed key are AC400');
select throws_ok(
    $$select * from actae.claim_execution('tap-rp', 'k', 'search', '[1]')$$,
    'AC400', 'params must be a JSON object', 'an array on a completed key is AC400');
select throws_ok(
    $$select * from actae.claim_execution('tap-rp', 'k', 'fetch', '{"q": "pg", "page": 1}')$$,
    'AC409', null, 'the same params under another tool name: AC409');

select actae.complete_execution(e.execution_id, e.claim_token, '{"r": 3}')
from actae.claim_execution('tap-rp', 'n', 'search', '{"x": 1.0}') as e;
select is(
    (select outcome from actae.claim_execution('tap-rp', 'n', 'search', '{"x": 1.0}')),
    'replayed', 'the same number replays');
select throws_ok(
    $$select * from actae.claim_execution('tap-rp', 'n', 'search', '{"x": 1.00}')$$,
    'AC409', null, '1.00 where 1.0 was claimed: another fingerprint, AC409');
select actae.fork_channel('tap-rp', (select head_cursor from actae.get_channel('tap-rp')),
    'tap-rp-fork');
select throws_ok(
    $$select * from actae.claim_execution('tap-rp-fork', 'n', 'search', '{"x": 1.00}')$$,
    'AC409', null, 'and the same in a fork, which inherits the key');

-- The shortcut is taken: with the stored fingerprint overwritten (which no Actae function
-- ever does), equal params still replay, and different ones are judged by the fingerprint.
update actae.executions set fingerprint = 'tampered'
where channel_id = 'tap-rp' and key_name = 'k';
select is(
    (select outcome
     from actae.claim_execution('tap-rp', 'k', 'search', '{"q": "pg", "page": 1}')),
    'replayed', 'equal params replay without their fingerprint being computed');
select throws_ok(
    $$select * from actae.claim_execution('tap-rp', 'k', 'search', '{"q": "pg", "page": 3}')$$,
    'AC409', null, 'different params are compared by fingerprint');

select * from finish();
rollback;
