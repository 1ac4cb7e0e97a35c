-- The event log and state transitions (SPEC section 3).

drop function if exists actae._append(
    actae.channels, text, jsonb, text, text, text, boolean, jsonb
);

-- actae._check_operation_id — AC400 naming operation_id unless p_operation_id is 1 to
-- _limit('operation_id') bytes and does not begin with 'actae.'.
-- Guarantees: operation ids beginning with 'actae.' (case-sensitive) are Actae's own: the
-- sleeps and waits of runs are recorded under actae.sleep:<key> and actae.wait:<key>
-- (actae._park_event, which does not come through here), and a caller who took one of
-- those ids through record_event, transition_state or fork_channel would make every later
-- sleep_run / wait_for_event of that key in the channel AC409. An 'actae.' id a caller
-- recorded before this rule stays where it is (an event log is never rewritten): a sleep
-- or wait of that key in that channel stays AC409, and the caller's call can no longer
-- replay it (AC400 here).
create or replace function actae._check_operation_id(
    p_operation_id text
) returns void
language plpgsql
immutable
as $$
begin
    perform actae._check_text(p_operation_id, 'operation_id');
    if starts_with(p_operation_id, 'actae.') then
        perform actae._raise(
            'AC400',
            'operation_id must not begin with actae. (reserved for Actae''s own operations)',
            jsonb_build_object('argument', 'operation_id', 'reserved_prefix', 'actae.')
        );
    end if;
end;
$$;

-- actae._find_operation — the operation recorded under p_operation_id as the channel sees it:
-- its own, or (in a fork) one recorded in the inherited prefix. A row of nulls when none.
-- Raises: AC409 when it exists with a different kind or content (DETAIL: both kinds and
-- content hashes, but never a fork's stored hash: it covers the fork's new channel id).
create or replace function actae._find_operation(
    p_channel actae.channels,
    p_operation_id text,
    p_kind text,
    p_content_sha256 text
) returns actae.operations
language plpgsql
stable
as $$
declare
    v_op actae.operations;
begin
    select o.* into v_op from actae.operations as o
    where o.channel_id = p_channel.channel_id and o.operation_id = p_operation_id;
    -- Then one statement per ancestor, nearest first, each on one channel (one shard on
    -- Citus).
    for i in reverse coalesce(array_length(p_channel.lineage_ids, 1), 0) .. 1 loop
        exit when v_op.operation_id is not null;
        select o.* into v_op from actae.operations as o
        where o.channel_id = p_channel.lineage_ids[i] and o.operation_id = p_operation_id
            and o.cursor <= p_channel.lineage_cursors[i];
    end loop;
    if v_op.operation_id is not null
        and (v_op.kind <> p_kind or v_op.content_sha256 <> p_content_sha256) then
        perform actae._raise(
            'AC409',
            format('operation_id %s in channel %s was used for a different request',
                p_operation_id, p_channel.channel_id),
            jsonb_build_object(
                'channel_id', p_channel.channel_id, 'operation_id', p_operation_id,
                'stored_kind', v_op.kind, 'given_kind', p_kind,
                -- Not a fork's: it hashes the fork's new id, which a caller of another
                -- tenant sharing this channel must not be able to confirm.
                'stored_content_sha256', case when v_op.kind <> 'fork_channel'
                    then v_op.content_sha256 end,
                'given_content_sha256', p_content_sha256
            )
        );
    end if;
    return v_op;
end;
$$;

-- actae._chain — the hash chain link of the event at p_cursor: sha256(previous link || ':'
-- || cursor || ':' || event_type || ':' || payload::text), hex. Immutable: convert_to is
-- only STABLE because it reads the database encoding, which never changes; declared so, the
-- link is computed inside the UPDATE of the channel row (Citus refuses STABLE functions of
-- a distributed table's columns there).
create or replace function actae._chain(
    p_previous text,
    p_cursor bigint,
    p_event_type text,
    p_payload jsonb
) returns text
language plpgsql
immutable
as $$
begin
    return encode(sha256(convert_to(
        p_previous || ':' || p_cursor || ':' || p_event_type || ':' || p_payload::text,
        'UTF8'
    )), 'hex');
end;
$$;

-- actae._append — append one event (and, with p_with_state, the next state snapshot) to
-- channel p_channel_id when its guards hold: state_version = p_expected_version and
-- head_cursor = p_expected_cursor (a null guard is no guard). Returns a row of nulls when
-- nothing matched (no such channel, or a stale guard: the caller then takes its full path,
-- which creates the channel or raises AC412); a caller that holds the channel locked
-- (actae._lock_channel) and passes no guard always appends.
-- Guarantees: behind the channel's clock guard (advisory lock 1633907811, as
-- actae._lock_channel), one UPDATE moves the head and is the row lock (so the caller's
-- append is ordered exactly as one after _lock_channel, without its SELECT ... FOR NO KEY
-- UPDATE): cursor = head + 1 (gapless), version = state_version + 1 with p_with_state, clock
-- + 1, head_chain = actae._chain of the previous link; then the event, the snapshot and the
-- operation_id's record, all in the caller's transaction. NOTIFY on the channel's topic
-- while it is watched (actae.watch_channel); an event a waiting run of the channel waits
-- for wakes it (actae._wake_run, one column compared when none waits).
-- Raises (the UPDATE is undone with the statement): AC404 when the channel belongs to a
-- tenant session_user is not a member of, AC429 when the channel's tenant is at a quota
-- (actae._check_append_quota).
create or replace function actae._append(
    p_channel_id text,
    p_event_type text,
    p_payload jsonb,
    p_operation_id text,
    p_kind text,
    p_content_sha256 text,
    p_with_state boolean,
    p_state jsonb,
    p_expected_version bigint,
    p_expected_cursor bigint
) returns actae.transition_result
language plpgsql
volatile
as $$
declare
    v_channel actae.channels;
    v_now timestamptz;
begin
    perform pg_advisory_xact_lock(actae._guard_key(1633907811, p_channel_id));
    update actae.channels as c set
        head_cursor = c.head_cursor + 1,
        head_chain = actae._chain(c.head_chain, c.head_cursor + 1, p_event_type, p_payload),
        state_version = c.state_version + (case when p_with_state then 1 else 0 end),
        clock = c.clock + 1
    where c.channel_id = p_channel_id
        and (p_expected_version is null or c.state_version = p_expected_version)
        and (p_expected_cursor is null or c.head_cursor = p_expected_cursor)
    returning c.* into v_channel;
    if not found then
        return null;
    end if;
    if not actae._owns(v_channel.tenant) then
        perform actae._no_channel(p_channel_id);
    end if;
    -- Most tenants have no quotas: one primary-key probe, and the check only for those.
    if exists (select from actae.quotas as q where q.tenant = v_channel.tenant) then
        perform actae._check_append_quota(v_channel);
    end if;
    v_now := actae._now();
    insert into actae.events (
        channel_id, cursor, event_type, payload, operation_id, clock, chain_sha256, recorded_at
    ) values (
        p_channel_id, v_channel.head_cursor, p_event_type, p_payload, p_operation_id,
        v_channel.clock, v_channel.head_chain, v_now
    );
    if p_with_state then
        insert into actae.snapshots (channel_id, version, cursor, state, recorded_at)
        values (p_channel_id, v_channel.state_version, v_channel.head_cursor, p_state, v_now);
    end if;
    if p_operation_id is not null then
        insert into actae.operations (
            channel_id, operation_id, kind, content_sha256, cursor, version, recorded_at
        ) values (
            p_channel_id, p_operation_id, p_kind, p_content_sha256, v_channel.head_cursor,
            v_channel.state_version, v_now
        );
    end if;
    -- Not when the server's NOTIFY queue is over half full (anyone may fill it): a full
    -- queue fails the whole transaction at commit. Watchers catch up by reading.
    if v_channel.watched_until > v_now and pg_notification_queue_usage() < 0.5 then
        perform pg_notify(actae._topic(v_channel), v_channel.head_cursor::text);
    end if;
    if v_channel.wake_event_type = p_event_type then
        -- A parked run of this channel waits for this event type (sql/40_runs.sql).
        perform actae._wake_run(p_channel_id, p_event_type, v_now);
    end if;
    return row(v_channel.head_cursor, v_channel.state_version, null, v_now)
        ::actae.transition_result;
end;
$$;

-- actae._check_expected — AC412 when a guard (expected_version / expected_cursor) is stale.
-- DETAIL carries the current head cursor and state version.
create or replace function actae._check_expected(
    p_channel actae.channels,
    p_expected_version bigint,
    p_expected_cursor bigint
) returns void
language plpgsql
immutable
as $$
begin
    if p_expected_version <> p_channel.state_version
        or p_expected_cursor <> p_channel.head_cursor then
        perform actae._raise(
            'AC412',
            format('channel %s is at version %s, cursor %s; the caller expected %s',
                p_channel.channel_id, p_channel.state_version, p_channel.head_cursor,
                concat_ws(', ', 'version ' || p_expected_version,
                    'cursor ' || p_expected_cursor)),
            jsonb_build_object(
                'channel_id', p_channel.channel_id,
                'current_version', p_channel.state_version,
                'current_cursor', p_channel.head_cursor,
                'expected_version', p_expected_version,
                'expected_cursor', p_expected_cursor
            )
        );
    end if;
end;
$$;

-- actae.record_event — append an event at cursor = head + 1 (the channel is created on its
-- first write).
-- Guarantees: cursors are gapless under concurrent writers; reusing operation_id with the
-- same event_type and payload replays the original (same cursor, outcome replayed), also
-- for an operation inherited from a fork's prefix; guards are not content.
-- Tenants: a new channel is the caller's tenant's; another tenant's channel is AC404.
-- Raises: AC400 bad argument (an operation_id beginning with 'actae.' too: reserved,
-- actae._check_operation_id), AC404 another tenant's channel, AC409 operation_id reused
-- with different content, AC412 expected_cursor is not the head.
create or replace function actae.record_event(
    p_channel_id text,
    p_event_type text,
    p_payload jsonb,
    p_operation_id text default null,
    p_expected_cursor bigint default null
) returns actae.record_result
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_payload jsonb := coalesce(p_payload, 'null'::jsonb);
    v_content text;
    v_channel actae.channels;
    v_op actae.operations;
    v_done actae.transition_result;
begin
    -- The argument checks run inline (as in transition_state): the helpers run, in the same
    -- order, only when a check fails, to raise the documented error.
    if (octet_length(p_channel_id) between 1 and actae._limit('channel_id')
        and octet_length(p_event_type) between 1 and actae._limit('event_type')
        and pg_column_size(v_payload) <= 8 * actae._limit('json_depth')
        and pg_column_compression(v_payload) is null
        and coalesce(p_expected_cursor between 0 and actae._limit('expected_cursor'), true)
    ) is not true then
        perform actae._check_text(p_channel_id, 'channel_id');
        perform actae._check_text(p_event_type, 'event_type');
        perform actae._check_json(v_payload, 'payload');
        perform actae._check_range(p_expected_cursor, 'expected_cursor', 0);
    end if;
    if p_operation_id is null then
        -- As transition_state: one UPDATE where the guard holds.
        v_done := actae._append(p_channel_id, p_event_type, v_payload, null, 'record_event',
            null, false, null, null, p_expected_cursor);
        if v_done.cursor is not null then
            return row(v_done.cursor, 'recorded', v_done.recorded_at)::actae.record_result;
        end if;
    end if;
    v_channel := actae._lock_channel(p_channel_id, true);
    if p_operation_id is not null then
        perform actae._check_operation_id(p_operation_id);
        v_content := encode(sha256(convert_to(
            jsonb_build_array(p_event_type, v_payload)::text, 'UTF8')), 'hex');
        v_op := actae._find_operation(v_channel, p_operation_id, 'record_event', v_content);
        if v_op.operation_id is not null then
            return row(v_op.cursor, 'replayed', v_op.recorded_at)::actae.record_result;
        end if;
    end if;
    if p_expected_cursor <> v_channel.head_cursor then
        perform actae._check_expected(v_channel, null, p_expected_cursor);
    end if;
    v_done := actae._append(p_channel_id, p_event_type, v_payload, p_operation_id,
        'record_event', v_content, false, null, null, null);
    return row(v_done.cursor, 'recorded', v_done.recorded_at)::actae.record_result;
end;
$$;

-- actae.transition_state — append an event and the state snapshot version + 1 in one
-- transaction.
-- Guarantees: written only when expected_version (and expected_cursor, when given) are the
-- channel's current ones; reusing operation_id with the same event_type, payload and state
-- replays the original (same cursor and version, outcome replayed) whatever the guards say.
-- Raises: AC400 bad argument (an operation_id beginning with 'actae.' too: reserved,
-- actae._check_operation_id), AC409 operation_id reused with different content, AC412 a
-- stale guard (DETAIL has the current version and cursor); nothing is written on error.
-- Tenants: as record_event (AC404 for another tenant's channel, actae._lock_channel).
create or replace function actae.transition_state(
    p_channel_id text,
    p_event_type text,
    p_payload jsonb,
    p_state jsonb,
    p_expected_version bigint,
    p_expected_cursor bigint default null,
    p_operation_id text default null
) returns actae.transition_result
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_payload jsonb := coalesce(p_payload, 'null'::jsonb);
    v_state jsonb := coalesce(p_state, 'null'::jsonb);
    v_content text;
    v_channel actae.channels;
    v_op actae.operations;
    v_done actae.transition_result;
begin
    -- The argument checks run inline (as in claim_execution): the helpers run, in the same
    -- order, only when a check fails (to raise the documented error), and _check_json only
    -- for a JSON value big or compressed enough to need its size or depth looked at.
    if (octet_length(p_channel_id) between 1 and actae._limit('channel_id')
        and octet_length(p_event_type) between 1 and actae._limit('event_type')
        and p_expected_version between 0 and actae._limit('expected_version')
        and coalesce(p_expected_cursor between 0 and actae._limit('expected_cursor'), true)
    ) is not true then
        perform actae._check_text(p_channel_id, 'channel_id');
        perform actae._check_text(p_event_type, 'event_type');
        perform actae._check_json(v_payload, 'payload');
        perform actae._check_json(v_state, 'state');
        perform actae._require(p_expected_version is null, 'expected_version');
        perform actae._check_range(p_expected_version, 'expected_version', 0);
        perform actae._check_range(p_expected_cursor, 'expected_cursor', 0);
    end if;
    if pg_column_size(v_payload) > 8 * actae._limit('json_depth')
        or pg_column_compression(v_payload) is not null then
        perform actae._check_json(v_payload, 'payload');
    end if;
    if pg_column_size(v_state) > 8 * actae._limit('json_depth')
        or pg_column_compression(v_state) is not null then
        perform actae._check_json(v_state, 'state');
    end if;
    if p_operation_id is null then
        -- The common transition: one UPDATE moves the head where the guards hold
        -- (actae._append); a new channel or a stale guard takes the full path.
        v_done := actae._append(p_channel_id, p_event_type, v_payload, null, 'transition_state',
            null, true, v_state, p_expected_version, p_expected_cursor);
        if v_done.cursor is not null then
            return row(v_done.cursor, v_done.version, 'transitioned', v_done.recorded_at)
                ::actae.transition_result;
        end if;
    end if;
    v_channel := actae._lock_channel(p_channel_id, true);
    if p_operation_id is not null then
        perform actae._check_operation_id(p_operation_id);
        v_content := encode(sha256(convert_to(
            jsonb_build_array(p_event_type, v_payload, v_state)::text, 'UTF8')), 'hex');
        v_op := actae._find_operation(v_channel, p_operation_id, 'transition_state', v_content);
        if v_op.operation_id is not null then
            return row(v_op.cursor, v_op.version, 'replayed', v_op.recorded_at)
                ::actae.transition_result;
        end if;
    end if;
    if p_expected_version <> v_channel.state_version
        or p_expected_cursor <> v_channel.head_cursor then
        perform actae._check_expected(v_channel, p_expected_version, p_expected_cursor);
    end if;
    v_done := actae._append(p_channel_id, p_event_type, v_payload, p_operation_id,
        'transition_state', v_content, true, v_state, null, null);
    return row(v_done.cursor, v_done.version, 'transitioned', v_done.recorded_at)
        ::actae.transition_result;
end;
$$;

-- actae.list_events — events after after_cursor (exclusive) in cursor order, at most
-- max_events (1..100000); a fork's list includes its inherited prefix.
-- Cost: one ordered primary-key range scan per lineage segment (root first, each on one
-- channel: one shard on Citus), reading at most max_events rows in all. Bitmap scans are
-- off here: near the tail of a long channel the planner would otherwise fetch and sort
-- every remaining event to return one page.
-- Raises: AC400 bad argument, AC404 unknown channel.
create or replace function actae.list_events(
    p_channel_id text,
    p_after_cursor bigint default 0,
    p_max_events integer default 100
) returns setof actae.event_row
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
set enable_bitmapscan = off
as $$
declare
    v_channel actae.channels := actae._channel(p_channel_id);
    v_ids text[] := array_append(v_channel.lineage_ids, v_channel.channel_id);
    v_cursors bigint[] := array_append(v_channel.lineage_cursors, null::bigint);
    v_left bigint := p_max_events;
    v_count bigint;
begin
    perform actae._require(p_after_cursor is null, 'after_cursor');
    perform actae._check_range(p_after_cursor, 'after_cursor', 0);
    perform actae._require(p_max_events is null, 'max_events');
    perform actae._check_range(p_max_events, 'max_events', 1);
    -- Segments cover consecutive cursor ranges, root first: their pages concatenate in
    -- cursor order.
    for i in 1 .. array_length(v_ids, 1) loop
        continue when p_after_cursor >= v_cursors[i];
        return query
        select e.cursor, e.event_type, e.payload, e.operation_id, e.recorded_at,
            e.chain_sha256
        from actae.events as e
        where e.channel_id = v_ids[i]
            and e.cursor > p_after_cursor
            and (v_cursors[i] is null or e.cursor <= v_cursors[i])
        order by e.cursor
        limit v_left;
        get diagnostics v_count = row_count;
        v_left := v_left - v_count;
        exit when v_left = 0;
    end loop;
end;
$$;

-- actae.get_state — the channel's state: latest when version and at_cursor are both null,
-- snapshot `version`, or the latest snapshot at or before `at_cursor`. Version 0 is the
-- empty state (JSON null at cursor 0).
-- Raises: AC400 bad argument or both selectors given, AC404 unknown channel, version or cursor.
create or replace function actae.get_state(
    p_channel_id text,
    p_version bigint default null,
    p_at_cursor bigint default null
) returns actae.state_row
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_channel actae.channels := actae._channel(p_channel_id);
begin
    if p_version is not null and p_at_cursor is not null then
        perform actae._raise(
            'AC400', 'pass version or at_cursor, not both',
            jsonb_build_object('argument', 'version', 'version', p_version,
                'at_cursor', p_at_cursor)
        );
    end if;
    perform actae._check_range(p_version, 'version', 0);
    perform actae._check_range(p_at_cursor, 'at_cursor', 0);
    if p_version > v_channel.state_version or p_at_cursor > v_channel.head_cursor then
        perform actae._raise(
            'AC404',
            format('channel %s has no %s', p_channel_id,
                coalesce('version ' || p_version, 'cursor ' || p_at_cursor)),
            jsonb_build_object(
                'channel_id', p_channel_id, 'version', p_version, 'at_cursor', p_at_cursor,
                'current_version', v_channel.state_version,
                'current_cursor', v_channel.head_cursor
            )
        );
    end if;
    if p_at_cursor is not null then
        return actae._state_at(v_channel, p_at_cursor, null);
    end if;
    return actae._state_at(v_channel, null, coalesce(p_version, v_channel.state_version));
end;
$$;
