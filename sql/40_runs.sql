-- Runs: agents that finish themselves (SPEC section 7, table in migrations/0007_runs.sql).
--
-- Lock order, everywhere: the channel row (FOR NO KEY UPDATE, as appends take it) before
-- the run row. sleep_run and wait_for_event append to the channel and then park the run;
-- record_event and transition_state hold the channel and then wake a waiting run
-- (actae._wake_run). The other run functions lock only the run row.
--
-- Sleeps and waits are recorded where forks inherit them: in the channel's own event log
-- (event types actae.sleep / actae.wait) under the operation ids actae.sleep:<key> and
-- actae.wait:<key>. A re-executed agent, or a fork of its channel, finds them again with
-- the same lookup an operation_id replay uses, and passes an elapsed sleep or a received
-- event without parking.

-- actae._queue_topic — the NOTIFY topic of a queue (identifier-safe). Inlinable.
create or replace function actae._queue_topic(
    p_queue text
) returns text
language sql
immutable
as $$
    select 'actae_queue_' || md5(p_queue);
$$;

-- actae.queue_topic — the topic on which a queue announces runs that become due now
-- (start_run, an awaited event); LISTEN on it to wake an idle worker. The payload is
-- empty: any role may LISTEN on any topic, and a queue name is shared by every tenant, so
-- a notification says only that a run is due (the worker's claim_run finds which).
-- Raises: AC400 a queue that is not 1 to 256 bytes of text (as start_run).
create or replace function actae.queue_topic(
    p_queue text
) returns text
language plpgsql
immutable
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
    perform actae._check_text(p_queue, 'queue', 256);  -- start_run's limit
    return actae._queue_topic(p_queue);
end;
$$;

-- actae._run_row — the API view of a run row; claim_token only when p_show_token.
create or replace function actae._run_row(
    p_row actae.runs,
    p_outcome text,
    p_show_token boolean
) returns actae.run_row
language plpgsql
immutable
as $$
begin
    return row(
        p_outcome, p_row.channel_id, p_row.agent, p_row.queue, p_row.input, p_row.status,
        case when p_show_token then p_row.claim_token end, p_row.worker, p_row.fence,
        p_row.attempt, p_row.failures, p_row.max_attempts, p_row.lease_seconds,
        p_row.lease_expires_at, p_row.due_at, p_row.wake_reason, p_row.result, p_row.error,
        p_row.cancel_requested_at is not null, p_row.cancel_reason, p_row.sleep_key,
        p_row.wait_key, p_row.wait_event_type, p_row.created_at, p_row.claimed_at,
        p_row.heartbeat_at, p_row.finished_at
    )::actae.run_row;
end;
$$;

-- actae._run_fenced_error — explain why a fenced run write matched no row.
-- Guarantees: AC404 when the run does not exist (or its channel is another tenant's); AC423
-- when p_claim_token is not the current token (checked first: a parked or requeued run has
-- none); AC409 when the run is already over. DETAIL is JSON.
create or replace function actae._run_fenced_error(
    p_channel_id text,
    p_claim_token uuid,
    p_action text
) returns void
language plpgsql
stable
as $$
declare
    v_row actae.runs;
begin
    select r.* into v_row from actae.runs as r where r.channel_id = p_channel_id;
    if not found or not actae._owns_channel(p_channel_id) then
        perform actae._raise(
            'AC404', format('run %s does not exist', p_channel_id),
            jsonb_build_object('channel_id', p_channel_id)
        );
    end if;
    if v_row.claim_token is distinct from p_claim_token then
        perform actae._raise(
            'AC423',
            format('cannot %s run %s: claim_token is not the current owner''s',
                p_action, p_channel_id),
            jsonb_build_object(
                'channel_id', p_channel_id, 'fence', v_row.fence, 'attempt', v_row.attempt,
                'status', v_row.status
            )
        );
    end if;
    perform actae._raise(
        'AC409',
        format('cannot %s run %s: it is already %s', p_action, p_channel_id, v_row.status),
        jsonb_build_object(
            'channel_id', p_channel_id, 'status', v_row.status, 'result', v_row.result,
            'error', v_row.error
        )
    );
end;
$$;

-- actae._check_run_tenant — refuse a fenced run write (p_action: heartbeat, complete, fail)
-- by a login outside the run's tenant, before anything is written.
-- Guarantees: AC404 for another tenant's run whatever p_claim_token, as for an unknown run
-- (actae._run_fenced_error). A run whose channel row is missing (start_run never leaves
-- one; claim_run lets a caller in no tenant claim it) passes: it is judged by its token
-- alone, in the write that follows.
create or replace function actae._check_run_tenant(
    p_channel_id text,
    p_claim_token uuid,
    p_action text
) returns void
language plpgsql
stable
as $$
begin
    if not coalesce(actae._owns(actae._channel_tenant(p_channel_id)), true) then
        perform actae._run_fenced_error(p_channel_id, p_claim_token, p_action);
    end if;
end;
$$;

-- actae._owned_run — the run row locked FOR UPDATE when p_claim_token is its current token
-- and it is running (a lapsed lease nobody reclaimed still counts).
-- Raises: AC404 / AC423 / AC409 as actae._run_fenced_error.
create or replace function actae._owned_run(
    p_channel_id text,
    p_claim_token uuid,
    p_action text
) returns actae.runs
language plpgsql
volatile
as $$
declare
    v_row actae.runs;
begin
    select r.* into v_row from actae.runs as r
    where r.channel_id = p_channel_id and r.claim_token = p_claim_token
        and r.status = 'running'
    for update;
    if not found then
        perform actae._run_fenced_error(p_channel_id, p_claim_token, p_action);
    end if;
    return v_row;
end;
$$;

-- actae.start_run — create a run of p_agent on channel p_channel_id (and the channel),
-- due at p_run_at (now when null or past).
-- run_at is a finite time before 9999-01-01 UTC: 'infinity' would be a run never due, and
-- neither it nor a time in year 10000 or later can be read back by the Python driver (its
-- datetime ends with year 9999; the bound leaves a day for any session time zone). A time
-- in the past, however far ('-infinity' excepted), is now.
-- Guarantees: one run per channel; the same channel again with the same agent and a
-- jsonb-equal input replays (outcome replayed, the stored row whatever its status now);
-- a run due now is announced on its queue's topic (NOTIFY) when the transaction commits.
-- A null input is stored as JSON null; a null queue means 'default', a null max_attempts 5.
-- The channel belongs to the caller's tenant; another tenant's channel id is AC404.
-- Raises: AC400 bad argument (run_at infinite or not before 9999-01-01 UTC too), AC404
-- another tenant's channel, AC409 the channel already has a run with another agent or input
-- (DETAIL: stored and given agent, sha256 of stored and given input), 0A000 when it would
-- create a run in a transaction that is not READ COMMITTED (actae._not_read_committed).
create or replace function actae.start_run(
    p_channel_id text,
    p_agent text,
    p_input jsonb,
    p_queue text default 'default',
    p_run_at timestamptz default null,
    p_max_attempts integer default 5
) returns actae.run_row
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_input jsonb := coalesce(p_input, 'null'::jsonb);
    v_queue text := coalesce(p_queue, 'default');
    v_max_attempts integer := coalesce(p_max_attempts, 5);
    v_now timestamptz := actae._now();
    v_due timestamptz;
    v_row actae.runs;
begin
    -- Inline checks, as in claim_run: the helpers run, in the same order, only when one
    -- fails.
    if (octet_length(p_channel_id) between 1 and 256
        and octet_length(p_agent) between 1 and 256
        and octet_length(v_queue) between 1 and 256
        and pg_column_size(v_input) <= 8 * actae._limit('json_depth')
        and pg_column_compression(v_input) is null
        and coalesce(isfinite(p_run_at) and p_run_at < '9999-01-01 00:00:00+00', true)
        and v_max_attempts between 1 and 1000) is not true then
        perform actae._check_text(p_channel_id, 'channel_id', 256);
        perform actae._check_text(p_agent, 'agent', 256);
        perform actae._check_text(v_queue, 'queue', 256);
        perform actae._check_json(v_input, 'input', 1048576);
        if not (isfinite(p_run_at) and p_run_at < '9999-01-01 00:00:00+00') then
            perform actae._raise(
                'AC400', 'run_at must be a finite time before 9999-01-01 00:00:00+00',
                jsonb_build_object('argument', 'run_at', 'run_at', p_run_at)
            );
        end if;
        perform actae._check_range(v_max_attempts, 'max_attempts', 1, 1000);
    end if;
    v_due := greatest(coalesce(p_run_at, v_now), v_now);
    -- The channel's purge guard, shared until commit, as a claim takes it
    -- (actae._claim_channel): a purge deleting the channel finishes first, and the run then
    -- starts in a new channel; never in one being deleted (the run would be deleted with
    -- it, or outlive it).
    perform pg_advisory_xact_lock_shared(actae._guard_key(1633907809, p_channel_id));
    if current_setting('transaction_isolation') <> 'read committed' and not exists (
        select 1 from actae.runs as r where r.channel_id = p_channel_id
    ) then
        -- A new run: its channel must be read with a fresh snapshot (a purge that deleted it
        -- while we waited for the guard is seen only so), as a claim that takes ownership.
        -- A replay answers at any level.
        perform actae._not_read_committed('a start_run that creates a run');
    end if;
    insert into actae.channels (channel_id, tenant)
    values (p_channel_id, actae._new_channel_tenant(p_channel_id))
    on conflict (channel_id) do nothing;
    if not actae._owns_channel(p_channel_id) then
        -- Another tenant's channel id: refused as an unknown channel is, nothing written.
        perform actae._no_channel(p_channel_id);
    end if;
    insert into actae.runs as r (
        channel_id, agent, queue, input, status, due_at, wake_reason, max_attempts, created_at
    ) values (
        p_channel_id, p_agent, v_queue, v_input, 'queued', v_due, 'start', v_max_attempts,
        v_now
    )
    on conflict (channel_id) do nothing
    returning r.* into v_row;
    if found then
        -- Not into a NOTIFY queue over half full (see actae._append): workers poll too.
        if v_due <= v_now and pg_notification_queue_usage() < 0.5 then
            perform pg_notify(actae._queue_topic(v_queue), '');
        end if;
        return actae._run_row(v_row, 'started', false);
    end if;
    select r.* into v_row from actae.runs as r where r.channel_id = p_channel_id;
    if v_row.agent <> p_agent or v_row.input <> v_input then
        perform actae._raise(
            'AC409',
            format('channel %s already has a run of a different agent or input', p_channel_id),
            jsonb_build_object(
                'channel_id', p_channel_id,
                'stored_agent', v_row.agent, 'given_agent', p_agent,
                'stored_input_sha256',
                encode(sha256(convert_to(v_row.input::text, 'UTF8')), 'hex'),
                'given_input_sha256', encode(sha256(convert_to(v_input::text, 'UTF8')), 'hex')
            )
        );
    end if;
    return actae._run_row(v_row, 'replayed', false);
end;
$$;

-- actae._run_lapse_limit — how many lease lapses in a row end a run (claim_run): 10.
-- docs/runs.md ("Lost workers") says why this number. Immutable: folded into a constant.
create or replace function actae._run_lapse_limit() returns integer
language plpgsql
immutable
as $$
begin
    return 10;
end;
$$;

-- actae._run_progressed — true when a tool call of the run's channel completed during the
-- run's last attempt (finished at or after its claim): the attempt got somewhere before
-- its worker was lost. One channel's executions (a router query on Citus).
create or replace function actae._run_progressed(
    p_run actae.runs
) returns boolean
language plpgsql
stable
as $$
begin
    return exists (
        select 1 from actae.executions as e
        where e.channel_id = p_run.channel_id and e.status = 'completed'
            and e.finished_at >= p_run.claimed_at
    );
end;
$$;

-- actae._run_failed — count one failure of the owner's (locked, running) run p_run, with
-- error p_error: queued again, due after the backoff (1 s x 2^(failures so far), at most one
-- hour; the token dies, wake_reason retry) when p_retryable and attempts are left, else
-- failed for good (no longer due, finished now). Either way its count of lease lapses in a
-- row goes back to 0. Used by fail_run and by claim_run for a run whose worker was lost 10
-- times in a row. The caller holds the run row lock.
create or replace function actae._run_failed(
    p_run actae.runs,
    p_error text,
    p_retryable boolean,
    p_now timestamptz
) returns actae.runs
language plpgsql
volatile
as $$
declare
    v_row actae.runs;
begin
    if p_retryable and p_run.failures + 1 < p_run.max_attempts then
        update actae.runs as r set
            failures = r.failures + 1,
            status = 'queued',
            error = p_error,
            claim_token = null,
            lease_expires_at = null,
            -- From the locked row (no column inside a stable expression: Citus refuses it).
            due_at = p_now + make_interval(secs => least(3600, power(2, p_run.failures))),
            wake_reason = 'retry',
            lapses = 0
        where r.channel_id = p_run.channel_id
        returning r.* into v_row;
    else
        update actae.runs as r set
            failures = r.failures + 1,
            status = 'failed',
            error = p_error,
            due_at = null,
            finished_at = p_now,
            lapses = 0
        where r.channel_id = p_run.channel_id
        returning r.* into v_row;
    end if;
    return v_row;
end;
$$;

-- actae.claim_run — lease the oldest due run of p_queue (of one of p_agents when given).
-- Due: queued / sleeping / waiting whose due_at (start or retry time, wake time, deadline,
-- or now once the awaited event arrived) has come, or running whose lease lapsed.
-- Guarantees: FOR UPDATE SKIP LOCKED, so concurrent claimers never wait on each other and
-- never get the same run; the oldest due run that no other claimer holds is taken, and zero
-- rows means every due run was held by another claimer or none is due. The due runs are read
-- in pages of 8, oldest first, without a lock (one ordered scan of the (queue, due_at,
-- channel_id) index that stops after the page, with or without statistics: bitmap scans are
-- off here, since a bitmap scan of every due run and a sort was the plan before the first
-- ANALYZE; on Citus one bounded read of every shard), then each is locked by its channel with
-- SKIP LOCKED and re-checked against its latest version (on Citus a router query): the first
-- one locked is the run. attempt and fence grow by one; the new owner gets a fresh
-- claim_token, every earlier token is dead (AC423). outcome is reclaimed when the previous
-- owner's lease lapsed, else claimed; wake_reason says why the run is due (start, retry,
-- timer, event, timeout, lease_expired). A lapsed run whose cancellation was requested is
-- ended as cancelled instead of being handed out. A run whose worker is lost every time
-- ends: reclaiming a lapsed run counts the lapse in its lapses column (1 when a tool call
-- of its channel completed during the lapsed attempt, else one more than before; every
-- orderly transition sets it back to 0), and a reclaim that would make it reach 10 counts
-- one failure of the run instead, as a retryable fail_run does (error 'the run''s worker
-- was lost 10 times in a row ...'; queued again after the backoff while attempts are left,
-- else failed; lapses back to 0), after which the next due run is claimed, in the same
-- call and transaction. Only runs of channels of the caller's tenant are candidates (another
-- tenant's queue of the same name is invisible).
-- Raises: AC400 bad argument (agents, when given, must be a non-empty list of names of 1 to
-- 256 bytes, as start_run's agent).
create or replace function actae.claim_run(
    p_queue text,
    p_worker text,
    p_agents text[] default null,
    p_lease_seconds integer default 60
) returns setof actae.run_row
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
set enable_bitmapscan = off
as $$
declare
    v_lease integer := coalesce(p_lease_seconds, 60);
    v_row actae.runs;
    v_now timestamptz;
    v_outcome text;
    v_token uuid;
    v_wake_reason text;
    v_seen integer;
    v_after_due timestamptz;
    v_after_channel text;
    v_candidate text;
    v_due timestamptz;
    v_lapses integer;
    v_roles oid [] := actae._member_of();
    v_agents_ok boolean := p_agents is null or (cardinality(p_agents) > 0
        and array_ndims(p_agents) = 1 and array_position(p_agents, null) is null);
begin
    if v_agents_ok and p_agents is not null then
        -- Each name as start_run's agent: 1 to 256 bytes (a longer or empty one matches no
        -- run, so it is a mistake to report, not a filter to apply).
        foreach v_candidate in array p_agents loop
            v_agents_ok := v_agents_ok and octet_length(v_candidate) between 1 and 256;
        end loop;
    end if;
    if (octet_length(p_queue) between 1 and 256
        and octet_length(p_worker) between 1 and 256
        and v_lease between 1 and 86400
        and v_agents_ok) is not true then
        perform actae._check_text(p_queue, 'queue', 256);
        perform actae._check_text(p_worker, 'worker', 256);
        perform actae._check_range(v_lease, 'lease_seconds', 1, 86400);
        perform actae._raise('AC400',
            'agents must be null or a non-empty list of agent names, each 1 to 256 bytes',
            jsonb_build_object('argument', 'agents'));
    end if;
    <<claim>>
    loop
        v_now := actae._now();
        v_row := null;
        v_after_due := null;
        v_after_channel := null;
        <<pages>>
        loop
            v_seen := 0;
            -- The next page of due runs, oldest first, read without a lock.
            for v_candidate, v_due in
                select r.channel_id, r.due_at from actae.runs as r
                where r.queue = p_queue and r.due_at <= v_now
                    and (p_agents is null or r.agent = any(p_agents))
                    and (v_roles is null or exists (
                        select from actae.channels as c
                        where c.channel_id = r.channel_id and c.tenant = any(v_roles)
                    ))
                    and (v_after_due is null
                        or (r.due_at, r.channel_id) > (v_after_due, v_after_channel))
                order by r.due_at, r.channel_id
                limit 8
            loop
                v_seen := v_seen + 1;
                v_after_due := v_due;
                v_after_channel := v_candidate;
                -- Locked by its channel and re-checked on its latest version: still due,
                -- and not held by another claimer (skipped, not waited for).
                select r.* into v_row from actae.runs as r
                where r.channel_id = v_candidate and r.queue = p_queue
                    and r.due_at <= v_now
                    and (p_agents is null or r.agent = any(p_agents))
                for update skip locked;
                exit pages when found;
            end loop;
            -- Nothing due that another claimer does not hold.
            exit pages when v_seen < 8;
        end loop;
        if v_row.channel_id is null then
            return;
        end if;
        if v_row.status = 'running' and v_row.cancel_requested_at is not null then
            -- Its owner is gone and it was asked to stop: end it rather than run it again.
            perform actae._end_cancelled(v_row.channel_id, v_now);
            continue claim;
        end if;
        v_lapses := 0;
        if v_row.status = 'running' then
            -- Its lease lapsed: the worker was lost (killed, out of memory, stalled). One
            -- more in a row unless the lapsed attempt got somewhere (a deploy that cut a
            -- long run midway is not a run that kills its worker).
            v_lapses := case when actae._run_progressed(v_row) then 1
                else v_row.lapses + 1 end;
            if v_lapses >= actae._run_lapse_limit() then
                -- Counted as one failure of the run, as fail_run(retryable) counts one: a
                -- retry after the backoff while attempts are left (which also parts it
                -- from the runs that were lost with it), else failed for good. A run that
                -- was only on the same worker as the one killing it gets its retry.
                perform actae._run_failed(v_row, format('the run''s worker was lost %s times'
                    || ' in a row (its lease lapsed each time with no tool call completed:'
                    || ' killed, out of memory or stalled)', v_lapses), true, v_now);
                continue claim;
            end if;
        end if;
        v_outcome := case when v_row.status = 'running' then 'reclaimed' else 'claimed' end;
        v_token := gen_random_uuid();
        -- Decided from the locked row, not in the UPDATE: Citus 13.2 sends a simple CASE on
        -- a column to the shard as a comparison with a boolean.
        v_wake_reason := case v_row.status
            when 'running' then 'lease_expired'
            when 'sleeping' then 'timer'
            else v_row.wake_reason
        end;
        update actae.runs as r set
            status = 'running',
            claim_token = v_token,
            worker = p_worker,
            fence = r.fence + 1,
            attempt = r.attempt + 1,
            lease_seconds = v_lease,
            lease_expires_at = v_now + make_interval(secs => v_lease),
            due_at = v_now + make_interval(secs => v_lease),
            wake_reason = v_wake_reason,
            claimed_at = v_now,
            heartbeat_at = null,
            lapses = v_lapses
        where r.channel_id = v_row.channel_id
        returning r.* into v_row;
        return next actae._run_row(v_row, v_outcome, true);
        return;
    end loop;
end;
$$;

-- actae.claim_runs — claim_run up to max_runs times in one call and one transaction: the
-- runs a worker with that many free slots takes at once, with one commit for all of them.
-- Guarantees: every row is the row claim_run returns for its claim (outcome, fresh
-- claim_token, wake_reason), each of a different run, oldest due first (each claim sees the
-- runs the earlier ones took as running); fewer rows than max_runs means no other run is
-- due that another claimer does not hold. An error claims nothing.
-- Raises: AC400 bad argument (max_runs 1..1000; the others as for claim_run).
create or replace function actae.claim_runs(
    p_queue text,
    p_worker text,
    p_max_runs integer,
    p_agents text[] default null,
    p_lease_seconds integer default 60
) returns setof actae.run_row
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_row actae.run_row;
begin
    if (p_max_runs between 1 and actae._limit('max_runs')) is not true then
        perform actae._require(p_max_runs is null, 'max_runs');
        perform actae._check_range(p_max_runs, 'max_runs', 1);
    end if;
    for i in 1 .. p_max_runs loop
        select r.* into v_row
        from actae.claim_run(p_queue, p_worker, p_agents, p_lease_seconds) as r;
        exit when not found;
        return next v_row;
    end loop;
end;
$$;

-- actae.heartbeat_run — extend the owner's lease to now + lease_seconds (the claim's lease
-- when null) and tell it whether cancellation was requested (cancel_requested).
-- Guarantees: fenced like heartbeat_execution: only the current token, honoured after the
-- lease lapsed as long as nobody reclaimed the run.
-- Raises: AC400 bad argument, AC404 no run (or another tenant's), AC423 token is not
-- current, AC409 run is over.
create or replace function actae.heartbeat_run(
    p_channel_id text,
    p_claim_token uuid,
    p_lease_seconds integer default null
) returns actae.run_row
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_row actae.runs;
    v_now timestamptz;
begin
    perform actae._check_text(p_channel_id, 'channel_id', 256);
    perform actae._require(p_claim_token is null, 'claim_token');
    perform actae._check_range(p_lease_seconds, 'lease_seconds', 1, 86400);
    perform actae._check_run_tenant(p_channel_id, p_claim_token, 'heartbeat');
    v_now := actae._now();
    -- Summed on UTC wall time, as in actae.heartbeat_execution (immutable, so Citus sends
    -- it to the shard with the column as an argument).
    update actae.runs as r set
        lease_expires_at = ((v_now at time zone 'UTC')
            + make_interval(secs => coalesce(p_lease_seconds, r.lease_seconds)))
        at time zone 'UTC',
        due_at = ((v_now at time zone 'UTC')
            + make_interval(secs => coalesce(p_lease_seconds, r.lease_seconds)))
        at time zone 'UTC',
        heartbeat_at = v_now
    where r.channel_id = p_channel_id and r.claim_token = p_claim_token
        and r.status = 'running'
    returning r.* into v_row;
    if not found then
        perform actae._run_fenced_error(p_channel_id, p_claim_token, 'heartbeat');
    end if;
    return actae._run_row(v_row, null, true);
end;
$$;

-- actae.complete_run — finish the owner's run with p_result (SQL NULL stored as JSON null).
-- Guarantees: fenced (current token, honoured after lapse until reclaimed); repeating with
-- the same token and a jsonb-equal result is a no-op success. A run whose cancellation
-- was requested but whose agent finished anyway is completed: the work is done. Its count
-- of lease lapses in a row (lapses, claim_run) goes back to 0.
-- Raises: AC400 bad argument, AC404 no run (or another tenant's, whatever the token),
-- AC423 token is not current, AC409 already failed or cancelled, or completed with a
-- different result.
create or replace function actae.complete_run(
    p_channel_id text,
    p_claim_token uuid,
    p_result jsonb
) returns actae.run_row
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_row actae.runs;
    v_result jsonb := coalesce(p_result, 'null'::jsonb);
    v_now timestamptz := actae._now();
begin
    if (octet_length(p_channel_id) between 1 and 256
        and p_claim_token is not null
        and pg_column_size(v_result) <= 8 * actae._limit('json_depth')
        and pg_column_compression(v_result) is null) is not true then
        perform actae._check_text(p_channel_id, 'channel_id', 256);
        perform actae._require(p_claim_token is null, 'claim_token');
        perform actae._check_json(v_result, 'result', 1048576);
    end if;
    perform actae._check_run_tenant(p_channel_id, p_claim_token, 'complete');
    update actae.runs as r set
        status = 'completed',
        result = v_result,
        due_at = null,
        finished_at = v_now,
        lapses = 0
    where r.channel_id = p_channel_id and r.claim_token = p_claim_token
        and r.status = 'running'
    returning r.* into v_row;
    if found then
        return actae._run_row(v_row, null, true);
    end if;
    select r.* into v_row from actae.runs as r
    where r.channel_id = p_channel_id and r.claim_token = p_claim_token;
    if found and v_row.status = 'completed' and v_row.result = v_result then
        return actae._run_row(v_row, null, true);
    end if;
    perform actae._run_fenced_error(p_channel_id, p_claim_token, 'complete');
    return null;
end;
$$;

-- actae.fail_run — record that the owner's attempt failed.
-- Guarantees: fenced like complete_run. The run's failures count grows by one; retryable
-- with failures < max_attempts → queued again, due after 1 s × 2^(failures − 1), at most
-- one hour (wake_reason retry, the token dies); otherwise failed for good. A run whose
-- cancellation was requested ends as cancelled (error 'cancelled: <reason>') whatever
-- p_retryable says. Parking (sleep, wait) and lease lapses are not failures, so a run that
-- sleeps ten times still has all its retries (claim_run ends a run whose worker was lost
-- 10 times in a row). Like every orderly end of an attempt, it sets the run's count of
-- lease lapses in a row back to 0. Repeating a final fail with the same token and error is
-- a no-op success.
-- Raises: AC400 bad argument, AC404 no run (or another tenant's), AC423 token is not
-- current (also after a retryable fail requeued the run), AC409 the run is already over.
create or replace function actae.fail_run(
    p_channel_id text,
    p_claim_token uuid,
    p_error text,
    p_retryable boolean default true
) returns actae.run_row
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_row actae.runs;
    v_now timestamptz := actae._now();
begin
    perform actae._check_text(p_channel_id, 'channel_id', 256);
    perform actae._require(p_claim_token is null, 'claim_token');
    perform actae._check_text(p_error, 'error', 65536);
    perform actae._require(p_retryable is null, 'retryable');
    perform actae._check_run_tenant(p_channel_id, p_claim_token, 'fail');
    select r.* into v_row from actae.runs as r
    where r.channel_id = p_channel_id and r.claim_token = p_claim_token
    for update;
    if found and v_row.status in ('failed', 'cancelled')
        and v_row.error in (p_error, 'cancelled: ' || v_row.cancel_reason) then
        return actae._run_row(v_row, null, true);
    elsif not found or v_row.status <> 'running' then
        perform actae._run_fenced_error(p_channel_id, p_claim_token, 'fail');
    elsif v_row.cancel_requested_at is not null then
        v_row := actae._end_cancelled(p_channel_id, v_now);
    else
        v_row := actae._run_failed(v_row, p_error, p_retryable, v_now);
        -- A requeued run's token is dead: not shown.
        return actae._run_row(v_row, null, v_row.status = 'failed');
    end if;
    return actae._run_row(v_row, null, true);
end;
$$;

-- actae._end_cancelled — end a run whose cancellation was requested: status cancelled,
-- error 'cancelled: <reason>', no longer due, lapses back to 0. The caller holds the run
-- row lock.
create or replace function actae._end_cancelled(
    p_channel_id text,
    p_now timestamptz
) returns actae.runs
language plpgsql
volatile
as $$
declare
    v_row actae.runs;
begin
    update actae.runs as r set
        status = 'cancelled',
        due_at = null,
        error = 'cancelled: ' || r.cancel_reason,
        finished_at = p_now,
        lapses = 0
    where r.channel_id = p_channel_id
    returning r.* into v_row;
    return v_row;
end;
$$;

-- actae._park — move the owner's (locked) run to sleeping or waiting, or end it as
-- cancelled when cancellation was requested; the token dies either way. A park is an
-- orderly end of the attempt: the count of lease lapses in a row (lapses) goes back to 0.
create or replace function actae._park(
    p_run actae.runs,
    p_status text,
    p_due_at timestamptz,
    p_key text,
    p_event_type text
) returns actae.runs
language plpgsql
volatile
as $$
declare
    v_row actae.runs;
    v_now timestamptz := actae._now();
begin
    if p_run.cancel_requested_at is not null then
        return actae._end_cancelled(p_run.channel_id, v_now);
    end if;
    update actae.runs as r set
        status = p_status,
        due_at = p_due_at,
        wake_reason = case when p_status = 'sleeping' then 'timer' else 'timeout' end,
        claim_token = null,
        lease_expires_at = null,
        sleep_key = case when p_status = 'sleeping' then p_key else r.sleep_key end,
        wait_key = case when p_status = 'waiting' then p_key else r.wait_key end,
        wait_event_type = case when p_status = 'waiting' then p_event_type
            else r.wait_event_type end,
        lapses = 0
    where r.channel_id = p_run.channel_id
    returning r.* into v_row;
    return v_row;
end;
$$;

-- actae._park_event — the event that records a sleep or a wait (p_event_type actae.sleep /
-- actae.wait) under operation id <p_event_type>:<p_key>: the one recorded before (own or
-- inherited by a fork), or, on the first call for the key, p_payload appended now to the
-- channel locked by the caller. p_content identifies the request (the same key with other
-- content is AC409, as for any operation_id).
-- Operation ids beginning with 'actae.' are reserved for these: record_event,
-- transition_state and fork_channel refuse them (actae._check_operation_id), so no caller
-- can take a run's sleep or wait key. The id is the prefix (12 or 11 bytes) and the key (1
-- to 256 bytes), up to 268 bytes, over the 256 SPEC 3a allows a caller's operation_id.
-- Kept so: that limit is on an argument, and Actae writes these itself (operations and
-- events store any length); the id must stay the key itself, since ids already recorded
-- are how re-executions and forks find their sleeps and waits (a hash of long keys would
-- no longer find them). Readers (list_events) may see operation ids up to 268 bytes.
create or replace function actae._park_event(
    p_channel actae.channels,
    p_event_type text,
    p_key text,
    p_content jsonb,
    p_payload jsonb
) returns actae.events
language plpgsql
volatile
as $$
declare
    v_kind text := case p_event_type when 'actae.sleep' then 'sleep_run'
        else 'wait_for_event' end;
    v_content text := encode(sha256(convert_to(p_content::text, 'UTF8')), 'hex');
    v_op actae.operations;
    v_done actae.transition_result;
begin
    v_op := actae._find_operation(p_channel, p_event_type || ':' || p_key, v_kind, v_content);
    if v_op.operation_id is not null then
        return actae._event_at(p_channel, v_op.cursor);
    end if;
    v_done := actae._append(p_channel.channel_id, p_event_type, p_payload,
        p_event_type || ':' || p_key, v_kind, v_content, false, null, null, null);
    return actae._event_at(p_channel, v_done.cursor);
end;
$$;

-- actae.sleep_run — a durable sleep of the owner's run, identified by p_sleep_key.
-- Guarantees: the first call for the key records the wake time (now + p_seconds) as event
-- actae.sleep in the channel (operation actae.sleep:<key>, so forks inherit it; no caller
-- can take that id, and it may be up to 268 bytes: see actae._park_event). Then, on
-- this and every later call with the key (from a re-executed agent or a fork), the
-- recorded wake time decides: passed → outcome elapsed, nothing parked, the caller keeps
-- its token; not yet → the run parks as sleeping, due at the wake time, its token dies
-- (outcome sleeping). When cancellation was requested the run ends as cancelled instead,
-- whether the sleep has elapsed or not (outcome cancelled; the sleep is still recorded).
-- A later call's p_seconds is ignored: the first recording wins.
-- Raises: AC400 bad argument, AC404 no run, AC423 token is not current, AC409 run is over.
create or replace function actae.sleep_run(
    p_channel_id text,
    p_claim_token uuid,
    p_sleep_key text,
    p_seconds integer
) returns actae.park_row
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_channel actae.channels;
    v_run actae.runs;
    v_event actae.events;
    v_now timestamptz := actae._now();
    v_wake_at timestamptz;
    v_cursor bigint;
begin
    perform actae._check_text(p_channel_id, 'channel_id', 256);
    perform actae._require(p_claim_token is null, 'claim_token');
    perform actae._check_text(p_sleep_key, 'sleep_key', 256);
    perform actae._require(p_seconds is null, 'seconds');
    perform actae._check_range(p_seconds, 'seconds', 0, 31536000);
    v_channel := actae._lock_channel(p_channel_id, false);
    v_run := actae._owned_run(p_channel_id, p_claim_token, 'sleep');
    v_event := actae._park_event(v_channel, 'actae.sleep', p_sleep_key,
        jsonb_build_array('actae.sleep', p_sleep_key),
        jsonb_build_object('sleep_key', p_sleep_key, 'seconds', p_seconds,
            'wake_at', v_now + make_interval(secs => p_seconds)));
    v_wake_at := (v_event.payload ->> 'wake_at')::timestamptz;
    v_cursor := v_event.cursor;
    -- A cancel-requested run does not pass through: actae._park ends it as cancelled.
    if v_wake_at <= actae._now() and v_run.cancel_requested_at is null then
        return row('elapsed', p_channel_id, v_run.status, p_sleep_key, v_wake_at, null, null,
            v_cursor, null, null)::actae.park_row;
    end if;
    v_run := actae._park(v_run, 'sleeping', v_wake_at, p_sleep_key, null);
    return row(case when v_run.status = 'cancelled' then 'cancelled' else 'sleeping' end,
        p_channel_id, v_run.status, p_sleep_key, v_wake_at, null, null, v_cursor, null,
        null)::actae.park_row;
end;
$$;

-- actae._first_event_after — the first event of p_event_type the channel sees (own or
-- inherited) after p_after_cursor and recorded at or before p_deadline; nulls when none.
create or replace function actae._first_event_after(
    p_channel actae.channels,
    p_event_type text,
    p_after_cursor bigint,
    p_deadline timestamptz
) returns actae.events
language plpgsql
stable
as $$
declare
    v_event actae.events;
    v_ids text[] := array_append(p_channel.lineage_ids, p_channel.channel_id);
    v_cursors bigint[] := array_append(p_channel.lineage_cursors, null::bigint);
begin
    -- One statement per lineage segment, root first (segments cover consecutive cursor
    -- ranges, so the first match is the earliest), each on one channel (one shard on Citus).
    for i in 1 .. array_length(v_ids, 1) loop
        continue when p_after_cursor >= v_cursors[i];
        select e.* into v_event from actae.events as e
        where e.channel_id = v_ids[i]
            and e.cursor > p_after_cursor
            and (v_cursors[i] is null or e.cursor <= v_cursors[i])
            and e.event_type = p_event_type
            and e.recorded_at <= p_deadline
        order by e.cursor
        limit 1;
        exit when found;
    end loop;
    return v_event;
end;
$$;

-- actae.wait_for_event — wait (durably) for an event of p_event_type in the run's channel,
-- identified by p_wait_key.
-- Guarantees: the first call for the key records the channel's head and a deadline (now +
-- p_timeout_seconds) as event actae.wait (operation actae.wait:<key>, inherited by forks;
-- no caller can take that id, and it may be up to 267 bytes: see actae._park_event).
-- Then, on this and every later call with the key: the first event of p_event_type
-- recorded after that event and no later than the deadline → outcome received (its cursor,
-- payload, recorded_at); none and the deadline passed → timed_out; otherwise the run parks
-- as waiting (due at the deadline, its token dies; outcome waiting). When cancellation was
-- requested the run ends as cancelled instead, whatever the answer would be (outcome
-- cancelled; the wait is still recorded). Otherwise the answer depends only on what is
-- recorded, so every re-execution and every fork that inherits the wait gets the same one.
-- The channel row is locked before the check, so an event recorded concurrently either is
-- seen here or wakes the parked run (actae._wake_run) in its own transaction: never
-- neither.
-- Raises: AC400 bad argument, AC404 no run, AC409 the key was used for another event type
-- or the run is over, AC423 token is not current.
create or replace function actae.wait_for_event(
    p_channel_id text,
    p_claim_token uuid,
    p_wait_key text,
    p_event_type text,
    p_timeout_seconds integer
) returns actae.park_row
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_channel actae.channels;
    v_run actae.runs;
    v_event actae.events;
    v_deadline timestamptz;
    v_cursor bigint;
begin
    perform actae._check_text(p_channel_id, 'channel_id', 256);
    perform actae._require(p_claim_token is null, 'claim_token');
    perform actae._check_text(p_wait_key, 'wait_key', 256);
    perform actae._check_text(p_event_type, 'event_type', 256);
    perform actae._require(p_timeout_seconds is null, 'timeout_seconds');
    perform actae._check_range(p_timeout_seconds, 'timeout_seconds', 0, 31536000);
    v_channel := actae._lock_channel(p_channel_id, false);
    v_run := actae._owned_run(p_channel_id, p_claim_token, 'wait');
    v_event := actae._park_event(v_channel, 'actae.wait', p_wait_key,
        jsonb_build_array('actae.wait', p_wait_key, p_event_type),
        jsonb_build_object('wait_key', p_wait_key, 'event_type', p_event_type,
            'timeout_seconds', p_timeout_seconds,
            'deadline', actae._now() + make_interval(secs => p_timeout_seconds)));
    v_deadline := (v_event.payload ->> 'deadline')::timestamptz;
    v_cursor := v_event.cursor;
    -- A cancel-requested run gets no answer: actae._park ends it as cancelled.
    if v_run.cancel_requested_at is null then
        v_event := actae._first_event_after(v_channel, p_event_type, v_cursor, v_deadline);
        if v_event.cursor is not null then
            return row('received', p_channel_id, v_run.status, p_wait_key, null,
                p_event_type, v_deadline, v_event.cursor, v_event.payload,
                v_event.recorded_at)::actae.park_row;
        end if;
        if v_deadline <= actae._now() then
            return row('timed_out', p_channel_id, v_run.status, p_wait_key, null,
                p_event_type, v_deadline, null, null, null)::actae.park_row;
        end if;
    end if;
    v_run := actae._park(v_run, 'waiting', v_deadline, p_wait_key, p_event_type);
    if v_run.status = 'waiting' then
        update actae.channels as c set wake_event_type = p_event_type
        where c.channel_id = p_channel_id;
    end if;
    return row(case when v_run.status = 'cancelled' then 'cancelled' else 'waiting' end,
        p_channel_id, v_run.status, p_wait_key, null, p_event_type, v_deadline, null, null,
        null)::actae.park_row;
end;
$$;

-- actae._wake_run — called by actae._append (record_event, transition_state) when an event
-- of the type a parked run of the channel waits for is appended: the waiting run becomes
-- due now (wake_reason event) and its queue is announced, in the appending transaction.
-- The caller holds the channel row lock; the flag on the channel row is cleared.
create or replace function actae._wake_run(
    p_channel_id text,
    p_event_type text,
    p_now timestamptz
) returns void
language plpgsql
volatile
as $$
declare
    v_queue text;
begin
    update actae.runs as r set
        due_at = p_now,
        wake_reason = 'event'
    where r.channel_id = p_channel_id and r.status = 'waiting'
        and r.wait_event_type = p_event_type and r.due_at > p_now
    returning r.queue into v_queue;
    if found and pg_notification_queue_usage() < 0.5 then
        perform pg_notify(actae._queue_topic(v_queue), '');
    end if;
    update actae.channels as c set wake_event_type = null
    where c.channel_id = p_channel_id;
end;
$$;

-- actae.cancel_run — stop a run (operators).
-- Guarantees: queued, sleeping or waiting → cancelled now (outcome cancelled, error
-- 'cancelled: <reason>'); running → cancel_requested is set (outcome cancel_requested):
-- the owner's next heartbeat says so and its fail_run ends the run as cancelled, its next
-- sleep or wait ends it at once, and if the owner is gone the next claim ends it instead
-- of running it. A run that is already over is returned unchanged (outcome unchanged).
-- The first reason given is kept.
-- A caller in a tenant (a per-tenant operator) cancels only its tenant's runs.
-- Raises: AC400 bad argument, AC404 no run (or one the caller may not read).
create or replace function actae.cancel_run(
    p_channel_id text,
    p_reason text
) returns actae.run_row
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_row actae.runs;
    v_now timestamptz := actae._now();
    v_outcome text;
begin
    perform actae._check_text(p_channel_id, 'channel_id', 256);
    perform actae._check_text(p_reason, 'reason', 4096);
    select r.* into v_row from actae.runs as r where r.channel_id = p_channel_id for update;
    if not found or not actae._may_read_channel(p_channel_id) then
        perform actae._raise(
            'AC404', format('run %s does not exist', p_channel_id),
            jsonb_build_object('channel_id', p_channel_id)
        );
    end if;
    if v_row.status in ('completed', 'failed', 'cancelled') then
        return actae._run_row(v_row, 'unchanged', false);
    end if;
    v_outcome := case when v_row.status = 'running' then 'cancel_requested'
        else 'cancelled' end;
    update actae.runs as r set
        cancel_requested_at = coalesce(r.cancel_requested_at, v_now),
        cancel_reason = coalesce(r.cancel_reason, p_reason),
        status = case when r.status = 'running' then r.status else 'cancelled' end,
        due_at = case when r.status = 'running' then r.due_at end,
        error = case when r.status = 'running' then r.error
            else 'cancelled: ' || coalesce(r.cancel_reason, p_reason) end,
        finished_at = case when r.status = 'running' then null else v_now end
    where r.channel_id = p_channel_id
    returning r.* into v_row;
    return actae._run_row(v_row, v_outcome, false);
end;
$$;

-- actae.get_run — one run (never its claim token), for a caller who may read its channel.
-- Raises: AC400 bad channel_id, AC404 no run (or one the caller may not read).
create or replace function actae.get_run(
    p_channel_id text
) returns actae.run_row
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_row actae.runs;
begin
    perform actae._check_text(p_channel_id, 'channel_id', 256);
    select r.* into v_row from actae.runs as r where r.channel_id = p_channel_id;
    if not found or not actae._may_read_channel(p_channel_id) then
        perform actae._raise(
            'AC404', format('run %s does not exist', p_channel_id),
            jsonb_build_object('channel_id', p_channel_id)
        );
    end if;
    return actae._run_row(v_row, null, false);
end;
$$;

-- actae.list_runs — runs filtered by queue, status and agent (each optional), oldest
-- first (created_at, then channel_id), at most max_rows (1..100000); no claim tokens.
-- A caller in a tenant sees its tenants' runs only; a caller in none (global auditor) all.
-- Raises: AC400 bad argument (an unknown status is named).
create or replace function actae.list_runs(
    p_queue text default null,
    p_status text default null,
    p_agent text default null,
    p_max_rows integer default 100
) returns setof actae.run_row
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_row actae.runs;
    v_roles oid [] := actae._readable();
begin
    if p_queue is not null then
        perform actae._check_text(p_queue, 'queue', 256);
    end if;
    if p_agent is not null then
        perform actae._check_text(p_agent, 'agent', 256);
    end if;
    if p_status is not null and p_status not in (
        'queued', 'running', 'sleeping', 'waiting', 'completed', 'failed', 'cancelled'
    ) then
        perform actae._raise(
            'AC400',
            'status must be one of queued, running, sleeping, waiting, completed, failed,'
            || ' cancelled',
            jsonb_build_object('argument', 'status', 'status', p_status)
        );
    end if;
    perform actae._require(p_max_rows is null, 'max_rows');
    perform actae._check_range(p_max_rows, 'max_rows', 1, 100000);
    -- Rows converted here, not in the query, which then is a plain scan (on Citus, of every
    -- shard, merged in order).
    for v_row in
        select r.* from actae.runs as r
        where (p_queue is null or r.queue = p_queue)
            and (p_status is null or r.status = p_status)
            and (p_agent is null or r.agent = p_agent)
            and (v_roles is null or exists (
                select from actae.channels as c
                where c.channel_id = r.channel_id and c.tenant = any(v_roles)
            ))
        order by r.created_at, r.channel_id
        limit p_max_rows
    loop
        return next actae._run_row(v_row, null, false);
    end loop;
end;
$$;

-- Generic plans for claim_run's statements. Its page query's optional filters (agents, the
-- caller's tenants, the page cursor) are "argument is null or ...", which a custom plan folds
-- away, so the plan cache judged the generic plan dearer and planned every statement anew on
-- each call: about a fifth of a claim's backend CPU (300 -> 237 us per claim on one server,
-- A/B). The generic plan reads the same (queue, due_at, channel_id) index in the claim's
-- order, with or without statistics (tests/python/integration/test_runs_plans.py); a page
-- after the first (only when eight due runs in a row are held by other claimers) starts
-- that range again and skips what it already saw. Not on Citus (actae._plan_cache_mode).
select actae._plan_cache_mode(
    'actae.claim_run(text, text, text[], integer)', 'force_generic_plan', 'default'
);
