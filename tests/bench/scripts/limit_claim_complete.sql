-- Physical limit of one durable tool call: the two commits Actae's claim+complete need, as
-- bare statements on a table shaped like actae.executions (same columns and indexes).
\set k random(1, 9000000000000000000)
insert into bench.ledger (
    channel_id, key_name, execution_id, tool_name, params, fingerprint, status, claim_token,
    fence, attempt, lease_seconds, lease_expires_at, created_at, claimed_at
) values (
    'c' || :client_id, 'k' || :k, gen_random_uuid(), 'search', '{"q": "actae"}',
    'fp', 'claimed', gen_random_uuid(), 1, 1, 60, now() + interval '60 seconds', now(), now()
) on conflict do nothing;
update bench.ledger set status = 'completed', result = '{"ok": true}', finished_at = now()
where channel_id = 'c' || :client_id and key_name = 'k' || :k;
