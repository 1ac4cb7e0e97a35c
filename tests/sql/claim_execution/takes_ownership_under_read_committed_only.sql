-- A claim that would take ownership (a new key, a reclaim) runs under READ COMMITTED only,
-- as the completion it leads to does: under REPEATABLE READ it raises 0A000 naming the
-- level and writes nothing, through claim_execution and both paths of claim_executions,
-- so no caller runs a tool whose result complete_execution would then refuse. A replay
-- writes nothing and is answered at any level.
begin isolation level repeatable read;
\ir ../helpers.psql
select plan(7);

select channel_id as created from actae.create_channel('tap-rrc') \gset
-- A completed row and one whose lease has lapsed (its claim would reclaim it), written
-- directly: no claim can make them in this transaction.
insert into actae.executions (
    channel_id, key_name, tool_name, params, fingerprint, status, claim_token, fence,
    attempt, lease_seconds, lease_expires_at, result, completed_clock, created_at, claimed_at,
    finished_at
) values
    ('tap-rrc', 'done', 't', '{}', pg_temp.sha256_hex('{}'), 'completed', gen_random_uuid(),
        1, 1, 60, now(), '{"ok": 1}', 0, now(), now(), now()),
    ('tap-rrc', 'stale', 't', '{}', pg_temp.sha256_hex('{}'), 'claimed', gen_random_uuid(),
        1, 1, 60, now() - interval '1 minute', null, null, now(), now(), null);
select pg_temp.ledger_digest() as before \gset

select is(pg_temp.error_of($$select actae.claim_execution('tap-rrc', 'new', 't', '{}')$$)
    ->> 'sqlstate', '0A000', 'a claim of a new key refuses REPEATABLE READ');
select is(pg_temp.error_of($$select actae.claim_execution('tap-rrc', 'new', 't', '{}')$$)
    ->> 'message',
    'a claim that takes ownership runs under READ COMMITTED only (this transaction is'
    || ' REPEATABLE READ)', 'naming the level');
select is(pg_temp.error_of($$select actae.claim_execution('tap-rrc', 'stale', 't', '{}')$$)
    ->> 'sqlstate', '0A000', 'so does a claim that would reclaim a lapsed lease');
select is(pg_temp.error_of($$select * from actae.claim_executions('tap-rrc',
        array['n1', 'n2'], array['t', 't'], array['{}', '{}']::jsonb[])$$) ->> 'sqlstate',
    '0A000', 'so does claim_executions of new keys (one INSERT)');
select is(pg_temp.error_of($$select * from actae.claim_executions('tap-rrc',
        array['done', 'n1', 'n1'], array['t', 't', 't'], array['{}', '{}', '{}']::jsonb[])$$)
    ->> 'sqlstate', '0A000', '... and element by element');
select is(pg_temp.ledger_digest(), :'before', 'nothing was written');
select is((select outcome || ' ' || (result ->> 'ok')
        from actae.claim_execution('tap-rrc', 'done', 't', '{}')),
    'replayed 1', 'a replay is answered under REPEATABLE READ');

select * from finish();
rollback;
