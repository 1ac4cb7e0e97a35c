-- Channels: creation, locking, lineage lookups (SPEC sections 1 and 3).

-- Signatures of earlier versions (a topic from the channel id, or the id and the tenant).
drop function if exists actae._topic(text);
drop function if exists actae._topic(text, oid);

-- actae._topic — the NOTIFY topic of channel p_channel (identifier-safe, 38 bytes):
-- 'actae_' || md5(secret || ':channel:' || channel_id || ':' || topic_nonce), the secret
-- being actae.topic_secret's (migration 0020, readable by actae_owner only) and the nonce a
-- random one each channel gets when it is created (0021; channels made before have none).
-- So a topic can be computed neither from a channel id nor before the channel exists: it is
-- learnt only from watch_channel, follow_channel or channel_topic, which check that the
-- caller may read the channel. It does not change with the channel's tenant
-- (assign_tenant), so watchers keep listening on the right topic.
-- PL/pgSQL: its query is planned once per session (a LANGUAGE sql body with a FROM clause is
-- planned again in every transaction, and an append of a watched channel calls this).
create or replace function actae._topic(
    p_channel actae.channels
) returns text
language plpgsql
stable
as $$
begin
    return (
        select 'actae_' || md5(s.secret || ':channel:' || p_channel.channel_id
            || coalesce(':' || p_channel.topic_nonce::text, ''))
        from actae.topic_secret as s
    );
end;
$$;

-- actae.channel_topic — the NOTIFY topic on which record_event and transition_state
-- announce a channel's new cursors while it is watched (see watch_channel, which returns it
-- too and is how a watcher should learn it).
-- Guarantees: the topic of an existing channel the caller may read (actae._may_read). For
-- a channel that does not exist, or another tenant's, the same decoy, a topic on which
-- nothing is announced, derived from the secret, the caller and the id: the answer does not
-- tell the caller whether the channel exists, nor change when someone creates it.
-- Raises: AC400 when channel_id is null, empty or longer than its limit (the argument
-- alone decides: no channel is read).
create or replace function actae.channel_topic(
    p_channel_id text
) returns text
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_channel actae.channels;
begin
    perform actae._check_text(p_channel_id, 'channel_id');
    select c.* into v_channel from actae.channels as c where c.channel_id = p_channel_id;
    if found and actae._may_read(v_channel.tenant) then
        return actae._topic(v_channel);
    end if;
    -- Its own domain (':decoy:', not ':channel:'): never a real channel's topic.
    return (
        select 'actae_' || md5(s.secret || ':decoy:' || octet_length(session_user) || ':'
            || session_user || ':' || p_channel_id)
        from actae.topic_secret as s
    );
end;
$$;

-- actae.watch_channel — have record_event and transition_state announce the channel's new
-- cursors (NOTIFY on its topic, payload the cursor) for the next p_seconds; returns the
-- topic to LISTEN on (actae._topic: derived from a secret, so only a caller who may use
-- the channel learns it).
-- Guarantees: the registration is written under the channel row lock that every append
-- holds, so an append either committed before this call returned (a read started after it
-- sees the event) or is announced. LISTEN, call this, then read after your last cursor,
-- and no event is missed. Registrations only extend (several watchers may share a channel);
-- renew before p_seconds run out (the driver's watch() does). Creates the channel when it
-- does not exist yet, so a watcher can wait for a run that has not started.
-- Owner-only: a channel of another tenant is AC404, as if it did not exist. Capped: a
-- tenant has at most _limit('watched_channels') (1000) channels watched at once (renewals
-- always pass).
-- Raises: AC400 bad channel_id or seconds not 1..86400, AC404 another tenant's channel,
-- AC429 a new registration past the watch cap.
create or replace function actae.watch_channel(
    p_channel_id text,
    p_seconds integer default 60
) returns text
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_now timestamptz := actae._now();
    v_channel actae.channels;
begin
    perform actae._check_text(p_channel_id, 'channel_id');
    perform actae._require(p_seconds is null, 'seconds');
    perform actae._check_range(p_seconds, 'seconds', 1);
    v_channel := actae._lock_channel(p_channel_id, true);
    perform actae._check_watch_cap(v_channel, v_now);
    update actae.channels as c set
        watched_until = greatest(c.watched_until,
            v_now + make_interval(secs => p_seconds))
    where c.channel_id = p_channel_id;
    return actae._topic(v_channel);
end;
$$;

-- actae._lock_channel — the channel row locked FOR NO KEY UPDATE, so appends and forks of
-- one channel happen one at a time (gapless cursors, exact clock order), after its clock
-- guard (advisory lock 1633907811) taken exclusively: every writer of the channel waits for
-- the channel's uncommitted completions (which hold the guard shared, see
-- actae.complete_execution) and they wait for it, so a completion's clock is exact. An
-- append that needs nothing from the row before it writes takes the same guard and row lock
-- with the UPDATE that moves the head (actae._append).
-- Guarantees: with p_create the channel is created on first use (version 0, state null,
-- head cursor 0), owned by the caller's tenant. Raises: AC404 when it does not exist and
-- p_create is false, or it belongs to a tenant session_user is not a member of (the same
-- error: no existence leak).
create or replace function actae._lock_channel(
    p_channel_id text,
    p_create boolean
) returns actae.channels
language plpgsql
volatile
as $$
declare
    v_channel actae.channels;
begin
    perform pg_advisory_xact_lock(actae._guard_key(1633907811, p_channel_id));
    select c.* into v_channel from actae.channels as c
    where c.channel_id = p_channel_id
    for no key update;
    if not found and p_create then
        insert into actae.channels (channel_id, tenant)
        values (p_channel_id, actae._new_channel_tenant(p_channel_id))
        on conflict (channel_id) do nothing;
        select c.* into v_channel from actae.channels as c
        where c.channel_id = p_channel_id
        for no key update;
    end if;
    if not found or not actae._owns(v_channel.tenant) then
        perform actae._no_channel(p_channel_id);
    end if;
    return v_channel;
end;
$$;

-- actae._channel — the channel row without a lock, for a caller who may read it
-- (actae._may_read). Raises: AC404 unknown channel, or one the caller may not read.
create or replace function actae._channel(
    p_channel_id text
) returns actae.channels
language plpgsql
stable
as $$
declare
    v_channel actae.channels;
begin
    perform actae._check_text(p_channel_id, 'channel_id');
    select c.* into v_channel from actae.channels as c where c.channel_id = p_channel_id;
    if not found or not actae._may_read(v_channel.tenant) then
        perform actae._no_channel(p_channel_id);
    end if;
    return v_channel;
end;
$$;

-- actae._event_at — the event at p_cursor as the channel sees it (own or inherited), or a
-- row of nulls when the channel has no such event.
create or replace function actae._event_at(
    p_channel actae.channels,
    p_cursor bigint
) returns actae.events
language plpgsql
stable
as $$
declare
    v_event actae.events;
    v_ids text[] := array_append(p_channel.lineage_ids, p_channel.channel_id);
    v_cursors bigint[] := array_append(p_channel.lineage_cursors, null::bigint);
begin
    -- One statement per lineage segment, each on one channel (one shard on Citus).
    for i in 1 .. array_length(v_ids, 1) loop
        continue when p_cursor > v_cursors[i];
        select e.* into v_event from actae.events as e
        where e.channel_id = v_ids[i] and e.cursor = p_cursor;
        exit when found;
    end loop;
    return v_event;
end;
$$;

-- actae._state_at — the state snapshot the channel sees at p_cursor (p_version null) or the
-- snapshot p_version (p_cursor null); version 0 (state null, cursor 0) when there is none.
create or replace function actae._state_at(
    p_channel actae.channels,
    p_cursor bigint,
    p_version bigint
) returns actae.state_row
language plpgsql
stable
as $$
declare
    v_state actae.state_row;
    v_ids text[] := array_append(p_channel.lineage_ids, p_channel.channel_id);
    v_cursors bigint[] := array_append(p_channel.lineage_cursors, null::bigint);
begin
    -- One statement per lineage segment, each on one channel (one shard on Citus), the
    -- channel's own segment first: versions grow along the lineage, so the first snapshot
    -- found at or before the cursor is the latest one.
    for i in reverse array_length(v_ids, 1) .. 1 loop
        if p_version is not null then
            select sn.version, sn.cursor, sn.state into v_state from actae.snapshots as sn
            where sn.channel_id = v_ids[i] and sn.version = p_version
                and (v_cursors[i] is null or sn.cursor <= v_cursors[i]);
        else
            select sn.version, sn.cursor, sn.state into v_state from actae.snapshots as sn
            where sn.channel_id = v_ids[i] and sn.cursor <= least(v_cursors[i], p_cursor)
            order by sn.cursor desc
            limit 1;
        end if;
        exit when found;
    end loop;
    if v_state.version is null then
        v_state := row(0, 0, 'null'::jsonb)::actae.state_row;
    end if;
    return v_state;
end;
$$;

-- actae.create_channel — create a channel explicitly, with metadata.
-- Guarantees: creating an existing channel with no metadata or the same metadata returns it
-- unchanged. Raises: AC400 bad argument, AC409 exists with different metadata.
create or replace function actae.create_channel(
    p_channel_id text,
    p_metadata jsonb default null
) returns actae.channel_row
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_channel actae.channels;
begin
    perform actae._check_text(p_channel_id, 'channel_id');
    if p_metadata is not null and jsonb_typeof(p_metadata) <> 'object' then
        perform actae._raise(
            'AC400', 'metadata must be a JSON object',
            jsonb_build_object('argument', 'metadata', 'type', jsonb_typeof(p_metadata))
        );
    end if;
    perform actae._check_json(p_metadata, 'metadata');
    insert into actae.channels (channel_id, metadata, tenant)
    values (p_channel_id, coalesce(p_metadata, '{}'::jsonb),
        actae._new_channel_tenant(p_channel_id))
    on conflict (channel_id) do nothing;
    v_channel := actae._lock_channel(p_channel_id, false);
    if p_metadata is not null and v_channel.metadata <> p_metadata then
        perform actae._raise(
            'AC409', format('channel %s exists with different metadata', p_channel_id),
            jsonb_build_object(
                'channel_id', p_channel_id, 'stored_metadata', v_channel.metadata,
                'given_metadata', p_metadata
            )
        );
    end if;
    return actae._channel_row(v_channel);
end;
$$;

-- actae._channel_row — the API view of a channel row.
create or replace function actae._channel_row(
    p_channel actae.channels
) returns actae.channel_row
language plpgsql
immutable
as $$
begin
    return row(
        p_channel.channel_id, p_channel.head_cursor, p_channel.state_version,
        p_channel.parent_channel_id, p_channel.fork_cursor, p_channel.created_at,
        p_channel.lineage_ids, p_channel.head_chain, p_channel.fork_prefix_sha256,
        p_channel.tool_policies, p_channel.metadata, p_channel.closed_at, p_channel.key_ttl
    )::actae.channel_row;
end;
$$;

-- actae.channel_lineage — the ancestors of channel p_channel_id, root first: the rows of the
-- view actae.channel_lineage for that channel (generation 1 is the parent; inherited_cursor
-- is the last event of the ancestor the channel sees, the smallest fork cursor on the way),
-- found by walking parent_channel_id one generation per statement. The view is a recursive
-- CTE, which Citus refuses over distributed tables; each statement here reads one channel
-- (a router query, one shard), so this answers on a Citus cluster too. Empty for a root.
-- The walk stops at an ancestor the caller may not read (another tenant's, after
-- actae.assign_tenant moved it), and after _limit('fork_depth') + 1 generations.
-- Raises: AC400 bad channel_id, AC404 unknown channel (or one the caller may not read).
create or replace function actae.channel_lineage(
    p_channel_id text
) returns setof actae.channel_lineage
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_channel actae.channels := actae._channel(p_channel_id);
    v_parent text := v_channel.parent_channel_id;
    v_cursor bigint := v_channel.fork_cursor;
    v_ancestors text [] := array[]::text [];
    v_cursors bigint [] := array[]::bigint [];
    v_tenant oid;
    v_next text;
    v_fork_cursor bigint;
begin
    while v_parent is not null
        and cardinality(v_ancestors) <= actae._limit('fork_depth') loop
        select c.tenant, c.parent_channel_id, c.fork_cursor
        into v_tenant, v_next, v_fork_cursor
        from actae.channels as c
        where c.channel_id = v_parent;
        exit when not found or not actae._may_read(v_tenant);
        v_ancestors := v_ancestors || v_parent;
        v_cursors := v_cursors || v_cursor;
        v_cursor := least(v_cursor, v_fork_cursor);
        v_parent := v_next;
    end loop;
    return query
    select p_channel_id, a.ancestor, a.generation::integer, a.inherited
    from unnest(v_ancestors, v_cursors) with ordinality as a (ancestor, inherited, generation)
    order by a.generation desc;
end;
$$;

-- actae.get_channel — head cursor, state version, parent, fork cursor, lineage (ancestors,
-- root first), chain value at the head and the channel's metadata.
-- Raises: AC400 bad channel_id, AC404 unknown channel.
create or replace function actae.get_channel(
    p_channel_id text
) returns actae.channel_row
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
    return actae._channel_row(actae._channel(p_channel_id));
end;
$$;
