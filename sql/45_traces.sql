-- Trace context of execution attempts (migration 0009): written by the worker that owns an
-- attempt when OpenTelemetry is on, read by whoever replays or takes over the execution.

-- actae.set_execution_trace — record the W3C traceparent of the span that runs the caller's
-- attempt (the attempt is the execution's current fence).
-- Guarantees: only the current claim_token of a claimed or in-progress execution may record
-- (the row is read FOR SHARE, so a concurrent reclaim waits and the trace is filed under the
-- fence that was current); recording again for the same attempt replaces the traceparent.
-- Raises: AC400 missing argument or a traceparent that is not "00-<32 hex>-<16 hex>-<2 hex>"
-- with non-zero ids, AC404 unknown execution (or another tenant's), AC423 token is not
-- current, AC409 execution already completed or failed.
create or replace function actae.set_execution_trace(
    p_execution_id uuid,
    p_claim_token uuid,
    p_traceparent text
) returns actae.execution_traces
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_channel_id text;
    v_fence bigint;
    v_tenant oid;
    v_row actae.execution_traces;
begin
    perform actae._require(p_execution_id is null, 'execution_id');
    perform actae._require(p_claim_token is null, 'claim_token');
    perform actae._require(p_traceparent is null, 'traceparent');
    if p_traceparent !~ '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$'
        or substr(p_traceparent, 4, 32) = repeat('0', 32)
        or substr(p_traceparent, 37, 16) = repeat('0', 16) then
        perform actae._raise(
            'AC400',
            'traceparent must be a W3C traceparent "00-<trace id>-<span id>-<flags>" in'
            ' lower-case hex with non-zero ids',
            jsonb_build_object('argument', 'traceparent', 'given', left(p_traceparent, 128))
        );
    end if;
    -- The channel first, then the row locked in that one channel (one shard on Citus).
    v_channel_id := actae._execution_channel(null, p_execution_id);
    select e.fence, e.tenant into v_fence, v_tenant
    from actae.executions as e
    where e.channel_id = v_channel_id
        and e.execution_id = p_execution_id
        and e.claim_token = p_claim_token
        and actae._in_flight(e.status)
    for share;
    -- Ownership on the row read (on Citus the statement runs where session_user is not the
    -- caller).
    if not found or not actae._owns(v_tenant) then
        perform actae._fenced_error(p_execution_id, p_claim_token, 'trace', v_channel_id);
    end if;
    insert into actae.execution_traces as t (
        channel_id, execution_id, fence, traceparent, recorded_at
    )
    values (v_channel_id, p_execution_id, v_fence, p_traceparent, actae._now())
    on conflict on constraint execution_traces_pkey do update
        set traceparent = excluded.traceparent, recorded_at = excluded.recorded_at
    returning t.* into v_row;
    return v_row;
end;
$$;

-- actae.get_execution_trace — the traceparents recorded for an execution's attempts.
-- Guarantees: one row per attempt that recorded one, in fence order (the last row is the
-- attempt that finished it, when it recorded one); by execution_id, so a fork replaying an
-- inherited result reads the traces of the run that did the work; no claim token is needed
-- or returned.
-- Raises: AC400 missing execution_id, AC404 unknown execution (or one the caller may not
-- read, actae._may_read).
create or replace function actae.get_execution_trace(
    p_execution_id uuid
) returns setof actae.execution_traces
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_tenant oid;
begin
    perform actae._require(p_execution_id is null, 'execution_id');
    select e.tenant into v_tenant from actae.executions as e
    where e.execution_id = p_execution_id
    limit 1;
    if not found or not actae._may_read(v_tenant) then
        perform actae._raise(
            'AC404',
            format('execution %s does not exist', p_execution_id),
            jsonb_build_object('execution_id', p_execution_id)
        );
    end if;
    return query
    select t.*
    from actae.execution_traces as t
    where t.execution_id = p_execution_id
    order by t.fence;
end;
$$;
