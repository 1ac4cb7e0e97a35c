-- Administering the ledger: cancellation, closing channels, key lifetimes and retention.
-- cancel_execution and purge are for role actae_operator only (sql/90_grants.sql);
-- close_channel and set_key_ttl are part of the agent API too (an agent closes its own run).

-- actae.cancel_execution — ask for an execution to stop.
-- Guarantees:
--   * claimed / in_progress: the request is recorded (cancel_requested_at, cancel_reason);
--     the owner's next heartbeat returns cancel_requested = true and the owner fails the
--     execution, which fail_execution records as status cancelled (not retryable). If the
--     owner is gone, the next claim ends it as cancelled, error 'cancelled: <reason>',
--     instead of reclaiming (outcome failed). An owner that completes anyway wins: the
--     effect happened, so its result is recorded.
--   * failed retryably (nobody owns it): cancelled at once, error 'cancelled: <reason>'.
--   * Repeating the call with the same reason is a no-op that returns the row.
-- A caller in a tenant (a per-tenant operator) cancels only its tenants' executions.
-- Raises: AC400 bad argument (reason is 1..4096 bytes), AC404 unknown execution (or one the
-- caller may not read), AC409 the execution already completed or failed for good, or was
-- cancelled with another reason.
-- p_channel_id, when given, must be the execution's channel: every statement then reads
-- that one channel (one shard on Citus; any other channel is AC404). Null: the channel is
-- looked up by execution_id (on Citus, on every shard).
create or replace function actae.cancel_execution(
    p_execution_id uuid,
    p_reason text,
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
    perform actae._check_text(p_reason, 'reason');
    v_channel_id := actae._execution_channel(p_channel_id, p_execution_id);
    -- The channel's purge guard, shared (as claims take it): a purge deciding to delete the
    -- channel skips it while this is uncommitted, and one that holds it makes this wait
    -- (then the execution is gone: AC404). Without it, a retryable failure cancelled here
    -- mid-purge kept its row while its channel was deleted.
    if v_channel_id is not null then
        perform pg_advisory_xact_lock_shared(actae._guard_key(1633907809, v_channel_id));
    end if;
    select e.* into v_row from actae.executions as e
    where e.channel_id = v_channel_id and e.execution_id = p_execution_id
    for update;
    if not found or not actae._may_read(v_row.tenant) then
        perform actae._raise(
            'AC404', format('execution %s does not exist', p_execution_id),
            jsonb_build_object('execution_id', p_execution_id)
        );
    end if;
    if v_row.cancel_requested_at is not null then
        if v_row.cancel_reason = p_reason then
            return actae._execution_row(v_row, null, false);
        end if;
        perform actae._raise(
            'AC409',
            format('execution %s was already cancelled with another reason', p_execution_id),
            jsonb_build_object(
                'execution_id', p_execution_id, 'stored_reason', v_row.cancel_reason,
                'given_reason', p_reason, 'status', v_row.status
            )
        );
    end if;
    if v_row.status = 'completed' or (v_row.status = 'failed' and not v_row.retryable) then
        perform actae._raise(
            'AC409',
            format('cannot cancel execution %s: it is already %s', p_execution_id, v_row.status),
            jsonb_build_object(
                'execution_id', p_execution_id, 'status', v_row.status,
                'result', v_row.result, 'error', v_row.error
            )
        );
    end if;
    update actae.executions as e set
        cancel_requested_at = v_now,
        cancel_reason = p_reason,
        status = case when e.status = 'failed' then 'cancelled' else e.status end,
        retryable = case when e.status = 'failed' then false else e.retryable end,
        error = case when e.status = 'failed' then 'cancelled: ' || p_reason else e.error end,
        finished_at = case when e.status = 'failed' then v_now else e.finished_at end
    where e.channel_id = v_row.channel_id and e.key_name = v_row.key_name
    returning e.* into v_row;
    return actae._execution_row(v_row, null, false);
end;
$$;

-- actae.close_channel — mark a run as over, which starts its retention clock.
-- Guarantees: closed_at is set once (closing again returns the channel unchanged). Closing
-- blocks nothing: a closed channel can still be read, written and forked, but purge deletes
-- it once it has been closed and quiet (nothing recorded, claimed or finished) for purge's
-- older_than, nothing in it is in flight, and no live fork inherits from it.
-- Owner-only: another tenant's channel is AC404, as an unknown one (actae._lock_channel).
-- Raises: AC400 bad channel_id, AC404 unknown channel (or another tenant's).
create or replace function actae.close_channel(
    p_channel_id text
) returns actae.channel_row
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_channel actae.channels;
    v_now timestamptz := actae._now();
begin
    perform actae._check_text(p_channel_id, 'channel_id');
    perform actae._lock_channel(p_channel_id, false);
    update actae.channels as c set closed_at = coalesce(c.closed_at, v_now)
    where c.channel_id = p_channel_id
    returning c.* into v_channel;
    return actae._channel_row(v_channel);
end;
$$;

-- actae._interval_has_negative_part — true when any part of p_interval (its months, days or
-- time) is negative. PostgreSQL compares intervals by one total (a month counted as 30
-- days), so '1000000 years -359999000 days' compares as about 2 years 9 months, yet adding
-- it to a timestamp adds the million years first: 22008 timestamp out of range. An
-- interval with no negative part is at least as long as each of its parts, so a bound on
-- the interval bounds them all. Inlined into the caller.
create or replace function actae._interval_has_negative_part(
    p_interval interval
) returns boolean
language sql
immutable
as $$
    select extract(year from p_interval) < 0 or extract(month from p_interval) < 0
        or extract(day from p_interval) < 0 or extract(hour from p_interval) < 0
        or extract(minute from p_interval) < 0 or extract(second from p_interval) < 0;
$$;

-- actae._key_until — when a key that finished at p_finished stops replaying under lifetime
-- p_ttl (null: never, 'infinity'): p_finished + p_ttl as timestamptz arithmetic does it in
-- time zone p_time_zone (months and days on the local calendar, then the time part as
-- elapsed time, so '24 hours' across a daylight-saving change is 24 hours), spelled with
-- immutable functions only (Citus refuses stable ones on a column in an UPDATE).
create or replace function actae._key_until(
    p_finished timestamptz,
    p_ttl interval,
    p_time_zone text
) returns timestamptz
language sql
immutable
as $$
    select coalesce(
        (((((p_finished at time zone p_time_zone) + d.calendar) at time zone p_time_zone)
            at time zone 'UTC') + (p_ttl - d.calendar)) at time zone 'UTC',
        'infinity'
    )
    from (
        select make_interval(
            months => (extract(year from p_ttl) * 12 + extract(month from p_ttl))::integer,
            days => extract(day from p_ttl)::integer
        ) as calendar
    ) as d;
$$;

-- actae.set_key_ttl — how long the finished execution keys of a channel keep replaying.
-- Guarantees: a finished (completed, failed, cancelled) execution of the channel replays
-- for at least key_ttl after it finished; after that purge may delete it, and a claim of
-- that key once it is purged is a new operation (outcome claimed, attempt 1). Null clears
-- the lifetime (keys live as long as the channel). A key keeps at least every lifetime it
-- lived under: a change that would end a finished key's life sooner stamps its
-- retain_until with the end of the life it had (or keeps a later stamp), so no later
-- key_ttl, however the lifetimes were lengthened or cleared in between, makes an existing
-- key purgeable sooner. A reclaim clears the stamp (the key's next finish starts afresh).
-- The channel is created on first use. A fork has its own lifetime (not inherited); a key a
-- live fork inherits is never purged.
-- Owner-only: another tenant's channel is AC404, as an unknown one (actae._lock_channel).
-- Raises: AC400 bad channel_id or key_ttl not between 1 second and 100 years (of 365.25
-- days) or with a negative part (actae._interval_has_negative_part: such a lifetime,
-- stored, could make every purge fail with 22008), AC404 another tenant's channel.
create or replace function actae.set_key_ttl(
    p_channel_id text,
    p_key_ttl interval
) returns actae.channel_row
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_channel actae.channels;
    v_time_zone text := pg_catalog.current_setting('TimeZone');
begin
    perform actae._check_text(p_channel_id, 'channel_id');
    -- Measured in seconds (a year is 365.25 days, as extract(epoch) counts it), so a
    -- lifetime read back as a number of days (drivers read '100 years' as 36 500 days) is
    -- accepted when written again.
    if extract(epoch from p_key_ttl) < 1
        or extract(epoch from p_key_ttl) > extract(epoch from interval '100 years')
        or actae._interval_has_negative_part(p_key_ttl) then
        perform actae._raise(
            'AC400', 'key_ttl must be between 1 second and 100 years, with no negative part',
            jsonb_build_object('argument', 'key_ttl', 'key_ttl', p_key_ttl::text)
        );
    end if;
    v_channel := actae._lock_channel(p_channel_id, true);
    if p_key_ttl is not null then
        -- Each finished key whose life the new lifetime would shorten (compared key by key:
        -- '1 month' and '30 days' differ by the month it finished in) is stamped with the
        -- end of the life it had, unless an earlier stamp already goes further. A null
        -- lifetime shortens nothing. The zone is read once into v_time_zone
        -- (actae._key_until: immutable, as Citus needs in an UPDATE).
        update actae.executions as e set
            retain_until = actae._key_until(e.finished_at, v_channel.key_ttl, v_time_zone)
        where e.channel_id = p_channel_id and not actae._in_flight(e.status)
            and actae._key_until(e.finished_at, p_key_ttl, v_time_zone)
            < actae._key_until(e.finished_at, v_channel.key_ttl, v_time_zone)
            and (e.retain_until is null or e.retain_until
                < actae._key_until(e.finished_at, v_channel.key_ttl, v_time_zone));
    end if;
    update actae.channels as c set key_ttl = p_key_ttl
    where c.channel_id = p_channel_id
    returning c.* into v_channel;
    return actae._channel_row(v_channel);
end;
$$;

-- actae.purge — delete what is past its lifetime, one bounded batch per call.
-- Guarantees:
--   * A closed channel is deleted whole (executions, events, snapshots, operation ids, its
--     run, annotations, LangGraph index rows and the channel row, atomically) when
--     closed_at and its last activity (last own event, last claim, last finish, the end of
--     its run) are older than older_than, none of its executions is claimed or in_progress,
--     its run (if any) is over, and no other channel lists it in its lineage (a live fork,
--     or a fork's fork, still inherits its prefix). Ancestors become purgeable once their
--     forks are purged.
--   * In a channel with a key lifetime (set_key_ttl), finished executions (not in flight)
--     that finished more than key_ttl ago are deleted, except completed ones a live fork
--     inherits (completed_clock <= the fork's lineage clock for this channel) and ones
--     whose retain_until (the lifetime they finished under, stamped by set_key_ttl before
--     it shortens it) has not passed: a later key_ttl never shortens a key's life. A
--     channel whose run is not over (queued, running, sleeping, waiting) keeps all its
--     keys, checked again under the channel's lock: its agent is re-executed from the top
--     on resume and must replay the tool calls it made, not make them again. Its keys
--     expire once the run is over.
--   * Nothing claimed or in_progress is ever deleted; events and snapshots of open
--     channels are never deleted.
--   * One call deletes about batch_size rows: whole channels until the budget is spent (a
--     channel bigger than the budget is still deleted whole, alone), then expired keys.
--     more = true when the budget ran out, or a fork was deleted (its parent, kept for it
--     until now, may be purgeable): call again (the CLI loops). Rows locked by
--     running transactions are skipped, not waited for: a channel whose row, purge guard,
--     LangGraph thread mapping, run or annotations are locked is left for a later purge,
--     and the locks taken on it are given back at once (actae._purge_lock); a closed
--     channel that must be kept is checked without any lock first.
-- Raises: AC400 older_than null, not between 0 and 1000 years or with a negative part (a
-- longer one, or a huge part, would put the cutoff before the earliest time PostgreSQL
-- holds: 22008 timestamp out of range from about 6700 years; 1000 years is long before
-- anything Actae recorded), batch_size not 1..100000; 0A000 (actae._not_read_committed) in
-- a transaction that is not READ COMMITTED.
create or replace function actae.purge(
    p_older_than interval,
    p_batch_size integer default 1000
) returns actae.purge_result
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_now timestamptz := actae._now();
    v_cutoff timestamptz;
    v_budget bigint := p_batch_size;
    v_done actae.purge_result := row(0, 0, 0, 0, 0, false)::actae.purge_result;
    v_channel actae.channels;
    v_candidate actae.channels;
    v_count bigint;
    v_fork_clock bigint;
    v_parent_freed boolean := false;
    v_seen integer;
    -- the keyset of the last candidate read (before every channel at first: a channel id is
    -- never empty), one condition an index serves in a generic plan too
    v_after_closed timestamptz := '-infinity'::timestamptz;
    v_after_channel text := '';
begin
    perform actae._require(p_older_than is null, 'older_than');
    if p_older_than < interval '0' or p_older_than > interval '1000 years'
        or actae._interval_has_negative_part(p_older_than) then
        perform actae._raise(
            'AC400', 'older_than must be between 0 and 1000 years, with no negative part',
            jsonb_build_object('argument', 'older_than', 'older_than', p_older_than::text)
        );
    end if;
    perform actae._require(p_batch_size is null, 'batch_size');
    perform actae._check_range(p_batch_size, 'batch_size', 1);
    -- Each check below reads the latest committed rows (a claim that committed after this
    -- transaction began): an older snapshot would delete a channel with a live claim.
    if current_setting('transaction_isolation') <> 'read committed' then
        perform actae._not_read_committed('purge');
    end if;
    v_cutoff := v_now - p_older_than;

    -- Candidates are read without a lock, then each is locked (skipped when locked) in a
    -- statement on its own channel, which re-checks it against the latest row version.
    -- They are read a page at a time, oldest first, in the order of channels_closed_idx (a
    -- loop over all of them could sort every closed channel past the cutoff at each call).
    <<pages>>
    loop
        v_seen := 0;
        for v_candidate in
            select c.* from actae.channels as c
            where c.closed_at < v_cutoff
                and (c.closed_at, c.channel_id) > (v_after_closed, v_after_channel)
            order by c.closed_at, c.channel_id  -- channels_closed_idx
            limit 100
        loop
            exit pages when v_budget <= 0;
            v_seen := v_seen + 1;
            v_after_closed := v_candidate.closed_at;
            v_after_channel := v_candidate.channel_id;
            -- Checked first without a lock: a channel that must be kept is not locked at all
            -- (its agents never wait for this purge), only one that looks purgeable is; and one
            -- found busy under the locks gives them back at once (actae._purge_lock).
            continue when actae._purge_blocked(v_candidate, v_cutoff);
            v_channel := actae._purge_lock(v_candidate.channel_id, v_cutoff);
            continue when v_channel.channel_id is null;
            delete from actae.executions as e
            where e.channel_id = v_channel.channel_id and not actae._in_flight(e.status)
                and e.claimed_at < v_cutoff and e.finished_at < v_cutoff;
            get diagnostics v_count = row_count;
            v_done.executions := v_done.executions + v_count;
            v_budget := v_budget - v_count;
            -- Traces of the deleted executions (the trigger of migration 0009 does it too on
            -- one node; on Citus, where tables cannot have triggers, only this does).
            delete from actae.execution_traces as t
            where t.channel_id = v_channel.channel_id
                and not exists (
                    select 1 from actae.executions as e
                    where e.channel_id = t.channel_id and e.execution_id = t.execution_id
                );
            delete from actae.events as e where e.channel_id = v_channel.channel_id;
            get diagnostics v_count = row_count;
            v_done.events := v_done.events + v_count;
            v_budget := v_budget - v_count;
            delete from actae.snapshots as s where s.channel_id = v_channel.channel_id;
            get diagnostics v_count = row_count;
            v_done.snapshots := v_done.snapshots + v_count;
            v_budget := v_budget - v_count;
            delete from actae.operations as o where o.channel_id = v_channel.channel_id;
            get diagnostics v_count = row_count;
            v_done.operations := v_done.operations + v_count;
            v_budget := v_budget - v_count;
            perform actae._delete_beside_channel(v_channel.channel_id);
            delete from actae.channels as c where c.channel_id = v_channel.channel_id;
            v_done.channels := v_done.channels + 1;
            v_budget := v_budget - 1;
            -- Its parent may be purgeable now (it was kept for this fork): say so.
            v_parent_freed := v_parent_freed or v_channel.parent_channel_id is not null;
        end loop;
        exit pages when v_seen < 100;  -- the last page
    end loop;

    -- Expired keys, channel by channel. FOR SHARE on the channel row keeps a fork of it from
    -- being created while we decide what its forks inherit (forks lock it FOR NO KEY UPDATE).
    -- A channel whose run is not over is skipped: its agent is re-executed from the top on
    -- resume and must find its finished tool calls (as actae._purge_blocked keeps it whole).
    for v_candidate in
        select c.* from actae.channels as c
        where c.key_ttl is not null
            and not exists (
                select 1 from actae.runs as r
                where r.channel_id = c.channel_id
                    and r.status not in ('completed', 'failed', 'cancelled')
            )
            and exists (
                select 1 from actae.executions as e
                where e.channel_id = c.channel_id
                    and not actae._in_flight(e.status)
                    and e.finished_at < v_now - c.key_ttl
                    and (e.retain_until is null or e.retain_until < v_now)
            )
        order by c.channel_id
    loop
        exit when v_budget <= 0;
        select c.* into v_channel from actae.channels as c
        where c.channel_id = v_candidate.channel_id and c.key_ttl is not null
        for share skip locked;
        continue when not found;
        -- Re-checked after the lock, in a statement of its own (fresh snapshot): a run
        -- started or woken since the candidates were read keeps its keys. A run that goes
        -- live later (start_run, a resume) finds only keys that were already past their
        -- lifetime when this check ran.
        continue when exists (
            select 1 from actae.runs as r
            where r.channel_id = v_channel.channel_id
                and r.status not in ('completed', 'failed', 'cancelled')
        );
        -- The latest clock of this channel that a live fork inherits up to (completions
        -- at or before it are inherited), read under the lock.
        select max(s.clock) into v_fork_clock
        from actae.channels as f
        cross join lateral unnest(f.lineage_ids, f.lineage_clocks) as s (channel_id, clock)
        where f.parent_channel_id is not null
            and f.lineage_ids @> array[v_channel.channel_id]  -- channels_lineage_idx
            and s.channel_id = v_channel.channel_id;
        with doomed as (
            select e.key_name from actae.executions as e
            where e.channel_id = v_channel.channel_id
                and not actae._in_flight(e.status)
                and e.finished_at < v_now - v_channel.key_ttl
                and (e.retain_until is null or e.retain_until < v_now)
                and not (e.status = 'completed'
                    and coalesce(e.completed_clock <= v_fork_clock, false))
            order by e.finished_at
            limit v_budget
            for update skip locked
        )

        delete from actae.executions as e
        using doomed as d
        where e.channel_id = v_channel.channel_id and e.key_name = d.key_name
            and not actae._in_flight(e.status);
        get diagnostics v_count = row_count;
        v_done.executions := v_done.executions + v_count;
        v_budget := v_budget - v_count;
        -- Traces of the deleted executions (the trigger of migration 0009 does it too on
        -- one node; on Citus, where tables cannot have triggers, only this does).
        delete from actae.execution_traces as t
        where t.channel_id = v_channel.channel_id
            and not exists (
                select 1 from actae.executions as e
                where e.channel_id = t.channel_id and e.execution_id = t.execution_id
            );
    end loop;

    v_done.more := v_budget <= 0 or v_parent_freed;
    return v_done;
end;
$$;

-- actae._purge_lock — lock closed channel p_channel_id for purge, or return a row of nulls
-- (holding no lock) when it must be left alone: its row is locked by another transaction,
-- its purge guard (1633907809 is 'acta') is busy (a claim, start_run or annotation in it is
-- uncommitted), actae._purge_blocked finds it must be kept (checked under the locks, each
-- in a statement of its own: a fork or a write that committed before is seen), or one of
-- the rows purge deletes beside it is locked (its LangGraph thread mapping, run or
-- annotations: a LangGraph writer holds the mapping FOR KEY SHARE and then waits for the
-- channel's lock; cancel_run or annotate_channel hold the run or annotation row and may wait
-- for the guard next: waiting for them here would deadlock).
-- Guarantees: on the locked path the caller holds, until commit, the channel row (FOR
-- UPDATE), the guard (exclusive: new claims, start_run and annotations wait, then start a
-- new channel or find none) and those rows; on the other path every lock taken here was
-- taken in a subtransaction that is rolled back, so a kept channel's agents never wait for
-- the rest of the purge.
create or replace function actae._purge_lock(
    p_channel_id text,
    p_cutoff timestamptz
) returns actae.channels
language plpgsql
volatile
as $$
declare
    v_channel actae.channels;
    v_table text;
    v_locked bigint;
    v_rows bigint;
begin
    begin
        select c.* into v_channel from actae.channels as c
        where c.channel_id = p_channel_id and c.closed_at < p_cutoff
        for update skip locked;
        if not found then
            raise sqlstate 'ACSKP';
        end if;
        if not pg_try_advisory_xact_lock(actae._guard_key(1633907809, p_channel_id)) then
            raise sqlstate 'ACSKP';
        end if;
        if actae._purge_blocked(v_channel, p_cutoff) then
            raise sqlstate 'ACSKP';
        end if;
        -- Every row of the channel's LangGraph thread mapping, run and annotations, or none.
        foreach v_table in array array['langgraph_threads', 'runs', 'annotations'] loop
            execute format(
                'select 1 from actae.%I as x where x.channel_id = $1 for update skip locked',
                v_table
            ) using p_channel_id;
            get diagnostics v_locked = row_count;
            execute format('select count(*) from actae.%I as x where x.channel_id = $1',
                v_table) into v_rows using p_channel_id;
            if v_rows > v_locked then
                raise sqlstate 'ACSKP';
            end if;
        end loop;
    exception when sqlstate 'ACSKP' then
        return null;
    end;
    return v_channel;
end;
$$;

-- actae._delete_beside_channel — delete what lives beside channel p_channel_id, for a caller
-- about to delete the channel row (actae.purge, actae._langgraph_drop_channel): its run,
-- annotations, execution traces (a trigger deletes a deleted execution's trace on one node;
-- Citus tables have none) and LangGraph index rows (the thread's mapping too), so nothing of
-- it shows up in a channel created later under the same id, by any tenant.
create or replace function actae._delete_beside_channel(
    p_channel_id text
) returns void
language plpgsql
volatile
as $$
begin
    delete from actae.runs as r where r.channel_id = p_channel_id;
    delete from actae.annotations as a where a.channel_id = p_channel_id;
    delete from actae.execution_traces as t where t.channel_id = p_channel_id;
    delete from actae.langgraph_writes as w where w.channel_id = p_channel_id;
    delete from actae.langgraph_checkpoints as k where k.channel_id = p_channel_id;
    delete from actae.langgraph_threads as t where t.channel_id = p_channel_id;
end;
$$;

-- actae._purge_blocked — true when a closed channel must be kept for now: a channel lists
-- it in its lineage, one of its executions is in flight, its run is not over (queued,
-- running, sleeping or waiting: it would start again on an empty ledger and repeat its
-- tool calls) or ended at or after p_cutoff, or something else happened in it at or after
-- p_cutoff (an own event recorded, an execution claimed or finished).
create or replace function actae._purge_blocked(
    p_channel actae.channels,
    p_cutoff timestamptz
) returns boolean
language plpgsql
stable
as $$
begin
    return exists (
        select 1 from actae.channels as f
        where f.parent_channel_id is not null
            and f.lineage_ids @> array[p_channel.channel_id]
    ) or exists (
        select 1 from actae.executions as e
        where e.channel_id = p_channel.channel_id
            and (actae._in_flight(e.status)
                or e.claimed_at >= p_cutoff or e.finished_at >= p_cutoff)
    ) or exists (
        select 1 from actae.events as e
        where e.channel_id = p_channel.channel_id
            and e.cursor = p_channel.head_cursor
            and e.recorded_at >= p_cutoff
    ) or exists (
        select 1 from actae.runs as r
        where r.channel_id = p_channel.channel_id
            and (r.status not in ('completed', 'failed', 'cancelled')
                or r.finished_at >= p_cutoff)
    );
end;
$$;
