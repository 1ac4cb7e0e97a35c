-- The floors of make bench: the thinnest functions a SPEC-shaped implementation could call,
-- measured beside Actae's in the same run. Each is SECURITY DEFINER with a pinned search_path
-- (agents call functions, not tables: SPEC section 5) and does only the writes its call must
-- make, with no argument checks, no tenancy, no forks, no idempotency and no guards. A target
-- that its floor misses cannot be met by any implementation of the spec on this machine.

create schema if not exists bench;
create table if not exists bench.ledger (like actae.executions including all);

-- A claim: insert the execution (lease, token, fence) and return its row.
create or replace function bench.claim_floor(
    p_channel_id text, p_key_name text, p_tool_name text, p_params jsonb
) returns bench.ledger
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_row bench.ledger;
begin
    insert into bench.ledger as e (
        channel_id, key_name, execution_id, tool_name, params, fingerprint, status,
        claim_token, fence, attempt, lease_seconds, lease_expires_at, created_at, claimed_at
    ) values (
        p_channel_id, p_key_name, gen_random_uuid(), p_tool_name, p_params, 'fp', 'claimed',
        gen_random_uuid(), 1, 1, 60, now() + interval '60 seconds', now(), now()
    ) on conflict do nothing
    returning e.* into v_row;
    return v_row;
end;
$$;

-- A completion: store the result under the caller's token (the fence) and return the row.
create or replace function bench.complete_floor(
    p_execution_id uuid, p_claim_token uuid, p_result jsonb, p_channel_id text
) returns bench.ledger
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_row bench.ledger;
begin
    update bench.ledger as e set status = 'completed', result = p_result, finished_at = now()
    where e.channel_id = p_channel_id and e.execution_id = p_execution_id
        and e.claim_token = p_claim_token
    returning e.* into v_row;
    return v_row;
end;
$$;

-- A transition: the channel's head (cursor, version, hash chain: SPEC section 3a), the event
-- and the state snapshot, written to Actae's own tables; returns the new cursor and version.
create or replace function bench.transition_floor(
    p_channel_id text, p_event_type text, p_payload jsonb, p_state jsonb
) returns table (cursor bigint, version bigint)
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_channel actae.channels;
begin
    update actae.channels as c set
        head_cursor = c.head_cursor + 1,
        state_version = c.state_version + 1,
        clock = c.clock + 1,
        head_chain = encode(sha256(convert_to(c.head_chain || ':' || (c.head_cursor + 1)
            || ':' || p_event_type || ':' || p_payload::text, 'UTF8')), 'hex')
    where c.channel_id = p_channel_id
    returning c.* into v_channel;
    insert into actae.events (
        channel_id, cursor, event_type, payload, clock, chain_sha256, recorded_at
    ) values (
        p_channel_id, v_channel.head_cursor, p_event_type, p_payload, v_channel.clock,
        v_channel.head_chain, now()
    );
    insert into actae.snapshots (channel_id, version, cursor, state, recorded_at)
    values (p_channel_id, v_channel.state_version, v_channel.head_cursor, p_state, now());
    return query select v_channel.head_cursor, v_channel.state_version;
end;
$$;
