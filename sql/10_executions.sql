-- The tool-execution ledger: claim, heartbeat, complete, fail (SPEC section 2).

-- actae.claim_execution — create-or-replay one side-effecting tool call.
-- Guarantees:
--   * Outcome claimed (new row, caller owns it), replayed (completed with the same
--     fingerprint: use the stored result), reclaimed (lease lapsed or last attempt failed
--     retryably: caller owns it with a new token and fence + 1; ambiguous = true when the
--     previous attempt ended with no recorded outcome), in_progress (another owner holds a
--     live lease) or failed (failed non-retryably, or cancelled). An execution cancelled
--     by actae.cancel_execution whose lease has lapsed is not reclaimed: it becomes status
--     cancelled (not retryable, error 'cancelled: <reason>') and the claim returns failed.
--   * Cancelled is reported as outcome failed, not an outcome of its own: the caller does
--     what SPEC section 2 says for failed (surface the stored error, do not call the
--     tool); the row's status, cancelled, tells a cancellation from a failure.
--   * Exactly one caller gets claimed/reclaimed per ownership epoch under READ COMMITTED:
--     INSERT ... ON CONFLICT DO NOTHING lets exactly one concurrent inserter create the row
--     (the others wait for its commit, then insert nothing); the losers then read the
--     committed row in a new statement with SELECT ... FOR UPDATE, so decisions about an
--     existing row (reclaim, replay) are made one at a time under the row lock and each
--     sees the previous owner's committed changes. A completed row is final, so its replay
--     is read without the lock (and writes nothing).
--   * In a fork, a key completed in the inherited prefix replays the ancestor's row (no new
--     row anywhere) unless the fork's tool policy for tool_name is live; a blocked tool
--     raises AC403 when the claim would run it. A key inherited for another tool is AC409
--     whatever the policies: live re-executes a tool's own calls, it never hands a key of
--     another operation to it.
--   * The lease is measured on the database clock (actae._now()); a null lease_seconds
--     means the default, 60. Limits are actae._limit's.
--   * Tenants (docs/tenants.md): a new channel belongs to the caller's tenant; a key of a
--     channel of another tenant, or a new key in one, is AC404 exactly as for an unknown
--     channel, and nothing is written. The replay of a completed key is one index probe of
--     its row (which carries the tenant) and reads nothing else; the channel is read only
--     for a new key (creation, fork inheritance and policy).
--   * written_by records session_user (the login) on every claim that writes.
--   * A claim that would take ownership (claimed, reclaimed) or end a cancelled execution
--     runs under READ COMMITTED only, as complete_execution does: under REPEATABLE READ or
--     SERIALIZABLE it raises 0A000 and writes nothing, so no caller runs a tool whose
--     completion would then be refused. Replays and the other outcomes write nothing and
--     are answered at any level.
-- Raises: AC400 bad argument (or a login in several tenants creating a channel), AC404
-- another tenant's channel, AC409 same key with a different fingerprint, tool_name or
-- dedup_fields, AC403 tool blocked by the fork policy.
create or replace function actae.claim_execution(
    p_channel_id text,
    p_key_name text,
    p_tool_name text,
    p_params jsonb,
    p_dedup_fields text[] default null,
    p_lease_seconds integer default 60
) returns actae.execution_row
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_fields text[];
    v_fingerprint text;
    v_channel actae.channels;
    v_row actae.executions;
    v_policy text;
    v_now timestamptz;
    v_token uuid;
    v_lease_seconds integer := coalesce(p_lease_seconds, 60);
begin
    -- The argument checks run inline (one expression instead of five calls per claim); only
    -- when one fails do the helpers run, in the same order, to raise the documented error.
    -- The limits are constants by the time this runs (actae._limit is folded at planning).
    if (octet_length(p_channel_id) between 1 and actae._limit('channel_id')
        and octet_length(p_key_name) between 1 and actae._limit('key_name')
        and octet_length(p_tool_name) between 1 and actae._limit('tool_name')
        and v_lease_seconds between 1 and actae._limit('lease_seconds')
        and pg_column_size(p_params) <= 8 * actae._limit('json_depth')
        and pg_column_compression(p_params) is null) is not true then
        perform actae._check_text(p_channel_id, 'channel_id');
        perform actae._check_text(p_key_name, 'key_name');
        perform actae._check_text(p_tool_name, 'tool_name');
        perform actae._check_range(v_lease_seconds, 'lease_seconds', 1);
        perform actae._check_json(p_params, 'params');
    end if;
    if p_dedup_fields is not null then
        perform actae._check_dedup_fields(p_dedup_fields);
        v_fields := array(select distinct f.name from unnest(p_dedup_fields) as f (name)
            order by f.name);
    end if;

    -- Replay first: a completed key is one index probe of its row, without a lock and
    -- before anything else is read (a completed row never changes again). The row carries
    -- its channel's tenant, so ownership is decided from it alone.
    select e.* into v_row from actae.executions as e
    where e.channel_id = p_channel_id and e.key_name = p_key_name;
    -- The common replay in one test: the caller's own completed row, same tool, no dedup
    -- fields on either side and the same params text. A row's fingerprint is always that of
    -- its stored params (a claim writes both; a reclaim writes params only after checking
    -- that their fingerprint is the stored one), so the same text needs no hash. The text,
    -- not jsonb equality: 1.0 and 1.00 are equal jsonb but different text, so different
    -- fingerprints, and the full path (and a fork, and a reclaim) would call them a
    -- different operation. Anything else (and any argument that is an error) takes the
    -- full path below, which decides by the fingerprint.
    if v_row.status = 'completed' and v_row.params::text = p_params::text
        and v_row.tool_name = p_tool_name
        and v_fields is null and v_row.dedup_fields is null and actae._owns(v_row.tenant) then
        return actae._execution_row(v_row, 'replayed', false);
    end if;
    if v_fields is null and jsonb_typeof(p_params) = 'object' then
        -- actae._fingerprint's rule for null dedup_fields, inline on the hot path.
        v_fingerprint := encode(sha256(convert_to(p_params::text, 'UTF8')), 'hex');
    else
        v_fingerprint := actae._fingerprint(p_params, v_fields);
    end if;
    if v_row.execution_id is not null then
        if not actae._owns(v_row.tenant) then
            perform actae._no_channel(p_channel_id);
        end if;
        if v_row.status = 'completed' then
            -- actae._check_same_operation's test inline; it runs (and raises) only when the
            -- stored operation differs.
            if v_row.tool_name <> p_tool_name or v_row.fingerprint <> v_fingerprint
                or v_row.dedup_fields is distinct from v_fields then
                perform actae._check_same_operation(v_row, p_tool_name, v_fields,
                    v_fingerprint);
            end if;
            return actae._execution_row(v_row, 'replayed', false);
        end if;
        -- Any other status is decided under the row lock, behind the purge guard (below).
        -- A fork's own row wins over what it inherits: the channel is not needed.
        perform pg_advisory_xact_lock_shared(actae._guard_key(1633907809, p_channel_id));
        select e.* into v_row from actae.executions as e
        where e.channel_id = p_channel_id and e.key_name = p_key_name
        for update;
        -- Not found: purged since the probe, the key is new again (v_row is all nulls).
    end if;

    if v_row.execution_id is null then
        -- A new key: only now is the channel read (created, or checked for a fork).
        v_channel := actae._claim_channel(p_channel_id);
        if not actae._owns(v_channel.tenant) then
            -- Another tenant's channel id: refused exactly as an unknown channel would be.
            perform actae._no_channel(p_channel_id);
        end if;
        if v_channel.parent_channel_id is not null then
            -- A fork without a row of its own for the key: look for an inherited completion.
            -- It replays unless the tool is live in the fork; live or not, a key inherited
            -- for another tool is that tool's (AC409), so a live policy never lets a claim
            -- take over a key of another operation.
            v_policy := coalesce(v_channel.tool_policies ->> p_tool_name, 'replay');
            v_row := actae._inherited_execution(v_channel, p_key_name);
            if v_row.execution_id is not null
                and (v_policy <> 'live' or v_row.tool_name <> p_tool_name) then
                perform actae._check_same_operation(v_row, p_tool_name, v_fields,
                    v_fingerprint);
                return actae._execution_row(v_row, 'replayed', false);
            end if;
            v_row := null;
            if v_policy = 'block' then
                perform actae._raise(
                    'AC403',
                    format('tool %s is blocked in fork %s', p_tool_name, p_channel_id),
                    jsonb_build_object(
                        'channel_id', p_channel_id, 'tool_name', p_tool_name,
                        'key_name', p_key_name
                    )
                );
            end if;
        end if;

        if current_setting('transaction_isolation') <> 'read committed' then
            perform actae._not_read_committed('a claim that takes ownership');
        end if;
        v_now := actae._now();
        insert into actae.executions as e (
            channel_id, key_name, execution_id, tool_name, params, dedup_fields, fingerprint,
            status, claim_token, fence, attempt, lease_seconds, lease_expires_at,
            created_at, claimed_at, tenant
        ) values (
            p_channel_id, p_key_name, actae._uuid7(), p_tool_name, p_params, v_fields,
            v_fingerprint, 'claimed', gen_random_uuid(), 1, 1, v_lease_seconds,
            v_now + make_interval(secs => v_lease_seconds), v_now, v_now, v_channel.tenant
        )
        on conflict (channel_id, key_name) do nothing
        returning e.* into v_row;
        if found then
            return actae._execution_row(v_row, 'claimed', true);
        end if;
        -- Another caller created the row first; its insert has committed (ours waited).
        -- A completed row never changes again, so its replay needs no row lock: the claim
        -- then writes nothing at all (no WAL flush at commit). Every other status is
        -- decided under the lock below.
        select e.* into v_row from actae.executions as e
        where e.channel_id = p_channel_id and e.key_name = p_key_name;
        if found and v_row.status = 'completed' then
            perform actae._check_same_operation(v_row, p_tool_name, v_fields, v_fingerprint);
            return actae._execution_row(v_row, 'replayed', false);
        end if;
        select e.* into v_row from actae.executions as e
        where e.channel_id = p_channel_id and e.key_name = p_key_name
        for update;
        if not found then
            -- Purged between the two statements: the key is new again.
            return actae.claim_execution(p_channel_id, p_key_name, p_tool_name, p_params,
                p_dedup_fields, p_lease_seconds);
        end if;
    end if;

    perform actae._check_same_operation(v_row, p_tool_name, v_fields, v_fingerprint);
    v_now := actae._now();
    if v_row.status = 'completed' then
        return actae._execution_row(v_row, 'replayed', false);
    elsif v_row.status = 'cancelled' or (v_row.status = 'failed' and not v_row.retryable) then
        return actae._execution_row(v_row, 'failed', false);
    elsif actae._in_flight(v_row.status) and v_row.lease_expires_at > v_now then
        return actae._execution_row(v_row, 'in_progress', false);
    elsif current_setting('transaction_isolation') <> 'read committed' then
        perform actae._not_read_committed('a claim that takes ownership');
    elsif v_row.cancel_requested_at is not null then
        -- Cancelled (actae.cancel_execution) and its owner is gone: end it as cancelled
        -- instead of reclaiming it.
        update actae.executions as e set
            status = 'cancelled',
            retryable = false,
            error = 'cancelled: ' || e.cancel_reason,
            finished_at = v_now,
            written_by = default
        where e.channel_id = p_channel_id and e.key_name = p_key_name
        returning e.* into v_row;
        return actae._execution_row(v_row, 'failed', false);
    end if;

    v_token := gen_random_uuid();
    update actae.executions as e set
        status = 'claimed',
        claim_token = v_token,
        fence = e.fence + 1,
        attempt = e.attempt + 1,
        params = p_params,
        lease_seconds = v_lease_seconds,
        lease_expires_at = v_now + make_interval(secs => v_lease_seconds),
        ambiguous = actae._in_flight(e.status),
        result = null,
        error = null,
        retryable = null,
        claimed_at = v_now,
        heartbeat_at = null,
        finished_at = null,
        retain_until = null,
        written_by = default
    where e.channel_id = p_channel_id and e.key_name = p_key_name
    returning e.* into v_row;
    return actae._execution_row(v_row, 'reclaimed', true);
end;
$$;

-- actae._claim_channel — the channel a claim of a new key writes in, behind its purge
-- guard: the guard (advisory lock 1633907809) is taken shared until commit, so purge (which
-- takes it exclusively) skips a channel while a claim in it is uncommitted, and a claim
-- waits for a purge of its channel to commit (then starts the channel afresh; see
-- actae.purge). Then the channel is read, or created for the caller's tenant when it does
-- not exist. Ownership is the caller's to check. Raises: AC400 when a login in several
-- tenants would create the channel (actae._new_channel_tenant).
create or replace function actae._claim_channel(
    p_channel_id text
) returns actae.channels
language plpgsql
volatile
as $$
declare
    v_channel actae.channels;
begin
    perform pg_advisory_xact_lock_shared(actae._guard_key(1633907809, p_channel_id));
    select c.* into v_channel from actae.channels as c where c.channel_id = p_channel_id;
    if not found then
        insert into actae.channels as c (channel_id, tenant)
        values (p_channel_id, actae._new_channel_tenant(p_channel_id))
        on conflict (channel_id) do nothing
        returning c.* into v_channel;
        if not found then
            select c.* into v_channel from actae.channels as c
            where c.channel_id = p_channel_id;
        end if;
    end if;
    return v_channel;
end;
$$;

-- actae._inherited_execution — the completed execution of p_key_name that a fork inherits:
-- the nearest ancestor's row completed before the fork's cut (completed_clock <= that
-- ancestor's lineage clock), or a row of nulls. Tool policies are the caller's to apply.
create or replace function actae._inherited_execution(
    p_channel actae.channels,
    p_key_name text
) returns actae.executions
language plpgsql
stable
as $$
declare
    v_row actae.executions;
begin
    -- One statement per ancestor, nearest first, each on one channel (one shard on Citus).
    for i in reverse coalesce(array_length(p_channel.lineage_ids, 1), 0) .. 1 loop
        select e.* into v_row from actae.executions as e
        where e.channel_id = p_channel.lineage_ids[i] and e.key_name = p_key_name
            and e.status = 'completed' and e.completed_clock <= p_channel.lineage_clocks[i];
        exit when found;
    end loop;
    return v_row;
end;
$$;

-- actae._check_same_operation — AC409 unless an existing execution is the same operation:
-- same tool_name, same (normalised) dedup_fields and same fingerprint.
create or replace function actae._check_same_operation(
    p_row actae.executions,
    p_tool_name text,
    p_fields text[],
    p_fingerprint text
) returns void
language plpgsql
immutable
as $$
begin
    if p_row.tool_name <> p_tool_name
        or p_row.fingerprint <> p_fingerprint
        or p_row.dedup_fields is distinct from p_fields then
        perform actae._raise(
            'AC409',
            format('key %s in channel %s was claimed for a different operation',
                p_row.key_name, p_row.channel_id),
            jsonb_build_object(
                'channel_id', p_row.channel_id, 'key_name', p_row.key_name,
                'stored_tool_name', p_row.tool_name, 'given_tool_name', p_tool_name,
                'stored_fingerprint', p_row.fingerprint, 'given_fingerprint', p_fingerprint,
                'stored_dedup_fields', p_row.dedup_fields, 'given_dedup_fields', p_fields
            )
        );
    end if;
end;
$$;

-- actae.heartbeat_execution — extend the caller's lease on an execution.
-- Guarantees: only the current claim_token may extend; a lapsed but unreclaimed lease is
-- extended again; the first heartbeat moves claimed to in_progress; the new expiry is
-- now + lease_seconds (the claim's lease when null).
-- Raises: AC400 bad argument, AC404 unknown execution (or another tenant's), AC423 token
-- is not current,
-- AC409 execution already finished (completed, failed or cancelled).
-- p_channel_id, when given, must be the execution's channel: every statement then reads
-- that one channel (one shard on Citus; any other channel is AC404). Null: the channel is
-- looked up by execution_id (on Citus, on every shard).
create or replace function actae.heartbeat_execution(
    p_execution_id uuid,
    p_claim_token uuid,
    p_lease_seconds integer default null,
    p_channel_id text default null
) returns actae.execution_row
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_row actae.executions;
    v_now timestamptz;
    v_channel_id text;
begin
    perform actae._require(p_execution_id is null, 'execution_id');
    perform actae._require(p_claim_token is null, 'claim_token');
    perform actae._check_range(p_lease_seconds, 'lease_seconds', 1);
    v_channel_id := actae._execution_channel(p_channel_id, p_execution_id);
    -- One clock reading: the lease runs exactly lease_seconds from the recorded heartbeat
    -- (read before the row lock, so a wait can only shorten the lease, never stretch it).
    v_now := actae._now();
    -- The sum is taken on UTC wall time (timestamp + interval and AT TIME ZONE are
    -- immutable; timestamptz + interval is only stable, which Citus refuses in an UPDATE
    -- when a column is an argument). Whole seconds in UTC: the same instant either way.
    update actae.executions as e set
        status = 'in_progress',
        lease_expires_at = ((v_now at time zone 'UTC')
            + make_interval(secs => coalesce(p_lease_seconds, e.lease_seconds)))
        at time zone 'UTC',
        heartbeat_at = v_now
    where e.channel_id = v_channel_id and e.execution_id = p_execution_id
        and e.claim_token = p_claim_token
        and actae._in_flight(e.status)
    returning e.* into v_row;
    -- Ownership is decided here, on the row read back, not in the UPDATE's WHERE: on Citus
    -- that statement runs on a shard, where session_user is not the caller. Another
    -- tenant's row raises (AC404, in _fenced_error), which undoes the update.
    if not found or not actae._owns(v_row.tenant) then
        perform actae._fenced_error(p_execution_id, p_claim_token, 'heartbeat', v_channel_id);
    end if;
    return actae._execution_row(v_row, null, true);
end;
$$;

-- actae.complete_execution — record the result of the caller's attempt.
-- Guarantees: only the current claim_token may complete (a lapsed lease that nobody
-- reclaimed is still honoured); a SQL NULL result is stored as JSON null; repeating the call
-- with the same token and a jsonb-equal result is a no-op success; the completion is
-- ordered exactly against the channel's appends and forks (it reads the channel clock
-- behind the channel's clock guard, held shared until commit: see actae._lock_channel),
-- which is what decides fork inheritance.
-- Raises: AC400 bad argument, AC404 unknown execution (or another tenant's), AC423 token
-- is not current, AC409 already failed, or already completed with a different result,
-- 0A000 in a transaction that is not READ COMMITTED (actae._not_read_committed).
-- p_channel_id, when given, must be the execution's channel: every statement then reads
-- that one channel (one shard on Citus; any other channel is AC404). Null: the channel is
-- looked up by execution_id (on Citus, on every shard).
create or replace function actae.complete_execution(
    p_execution_id uuid,
    p_claim_token uuid,
    p_result jsonb default null,
    p_channel_id text default null
) returns actae.execution_row
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_row actae.executions;
    v_result jsonb := coalesce(p_result, 'null'::jsonb);
    v_now timestamptz := actae._now();
    v_channel_id text;
begin
    -- Inline checks; the helpers run (and raise) only when one fails.
    if p_execution_id is null or p_claim_token is null
        or pg_column_size(v_result) > 8 * actae._limit('json_depth')
        or pg_column_compression(v_result) is not null then
        perform actae._require(p_execution_id is null, 'execution_id');
        perform actae._require(p_claim_token is null, 'claim_token');
        perform actae._check_json(v_result, 'result');
    end if;
    if octet_length(p_channel_id) between 1 and actae._limit('channel_id') then
        v_channel_id := p_channel_id;
    else
        v_channel_id := actae._execution_channel(p_channel_id, p_execution_id);
    end if;
    -- The channel's clock guard (1633907811 is 'actc'), shared until commit: appends and
    -- forks take it exclusively (actae._lock_channel), so they wait for this completion
    -- and it waits for them; the clock is read after it, by the UPDATE below (a statement
    -- started after the lock, so a fresh snapshot): completed_clock is exact. An advisory
    -- lock instead of FOR SHARE on the channel row: nothing is written to the channel's
    -- page (no WAL record, no full-page image after a checkpoint) and concurrent
    -- completions of one channel make no multixact.
    if current_setting('transaction_isolation') <> 'read committed' then
        perform actae._not_read_committed('complete_execution');
    end if;
    perform pg_advisory_xact_lock_shared(actae._guard_key(1633907811, v_channel_id));
    update actae.executions as e set
        status = 'completed',
        result = v_result,
        finished_at = v_now,
        completed_clock = (select c.clock from actae.channels as c
            where c.channel_id = v_channel_id),
        written_by = default
    where e.channel_id = v_channel_id and e.execution_id = p_execution_id
        and e.claim_token = p_claim_token
        and actae._in_flight(e.status)
    returning e.* into v_row;
    -- Ownership on the row read back (see heartbeat_execution): another tenant's row falls
    -- through to _fenced_error's AC404, which undoes the update.
    if found and actae._owns(v_row.tenant) then
        return actae._execution_row(v_row, null, true);
    end if;
    select e.* into v_row from actae.executions as e
    where e.channel_id = v_channel_id and e.execution_id = p_execution_id
        and e.claim_token = p_claim_token;
    if found and actae._owns(v_row.tenant) and v_row.status = 'completed' and v_row.result = v_result then
        return actae._execution_row(v_row, null, true);
    end if;
    perform actae._fenced_error(p_execution_id, p_claim_token, 'complete', v_channel_id);
    return null;
end;
$$;

-- actae.fail_execution — record that the caller's attempt failed.
-- Guarantees: only the current claim_token may fail the execution; retryable = true lets
-- the next claim reclaim it (not ambiguous: the outcome is recorded), retryable = false
-- makes every later claim return failed; on an execution whose cancellation was requested
-- (actae.cancel_execution) the status is cancelled, not retryable, whatever retryable
-- says; repeating the call with the same token, error and retryable is a no-op success.
-- Raises: AC400 bad argument, AC404 unknown execution (or another tenant's), AC423 token
-- is not current,
-- AC409 already completed, or already failed differently.
-- p_channel_id, when given, must be the execution's channel: every statement then reads
-- that one channel (one shard on Citus; any other channel is AC404). Null: the channel is
-- looked up by execution_id (on Citus, on every shard).
create or replace function actae.fail_execution(
    p_execution_id uuid,
    p_error text,
    p_claim_token uuid,
    p_retryable boolean default true,
    p_channel_id text default null
) returns actae.execution_row
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_row actae.executions;
    v_now timestamptz := actae._now();
    v_channel_id text;
begin
    perform actae._require(p_execution_id is null, 'execution_id');
    perform actae._require(p_claim_token is null, 'claim_token');
    perform actae._require(p_retryable is null, 'retryable');
    perform actae._check_text(p_error, 'error');
    v_channel_id := actae._execution_channel(p_channel_id, p_execution_id);
    update actae.executions as e set
        status = case when e.cancel_requested_at is null then 'failed' else 'cancelled' end,
        error = p_error,
        retryable = p_retryable and e.cancel_requested_at is null,
        finished_at = v_now,
        written_by = default
    where e.channel_id = v_channel_id and e.execution_id = p_execution_id
        and e.claim_token = p_claim_token
        and actae._in_flight(e.status)
    returning e.* into v_row;
    -- Ownership on the row read back (see heartbeat_execution): another tenant's row falls
    -- through to _fenced_error's AC404, which undoes the update.
    if found and actae._owns(v_row.tenant) then
        return actae._execution_row(v_row, null, true);
    end if;
    select e.* into v_row from actae.executions as e
    where e.channel_id = v_channel_id and e.execution_id = p_execution_id
        and e.claim_token = p_claim_token;
    if found and actae._owns(v_row.tenant) and v_row.status in ('failed', 'cancelled') and v_row.error = p_error
        and v_row.retryable = (p_retryable and v_row.cancel_requested_at is null) then
        return actae._execution_row(v_row, null, true);
    end if;
    perform actae._fenced_error(p_execution_id, p_claim_token, 'fail', v_channel_id);
    return null;
end;
$$;
