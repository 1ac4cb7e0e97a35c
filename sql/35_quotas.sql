-- Per-tenant quotas (issue 14, F9; docs/hardening.md). A tenant (channels.tenant, a role)
-- may have a row in actae.quotas (migration 0016), set by actae_operator with set_quota:
-- at most max_channels channels, max_bytes bytes (as measured by measure_usage) and
-- max_events_per_channel events in any one of its channels. Exceeding one is SQLSTATE
-- AC429 (quota_exceeded) and writes nothing. Where each is enforced, and what it costs:
--   * channels: when a channel is created (actae._new_channel_tenant, in every creation
--     path), exactly (a count under a per-tenant lock, only for tenants with a quota);
--   * events per channel: at every append (actae._check_append_quota), from the cursor;
--   * bytes: at channel creation and at every append, against the usage measure_usage last
--     recorded (no counter is updated on the write path). Claims and completions are never
--     checked: the claim+complete hot path pays nothing. The overrun is bounded by what the
--     tenant writes between two measurements (run measure_usage every minute or so).
-- The watch cap (actae._check_watch_cap) is a fixed limit, _limit('watched_channels').

-- actae.set_quota — set (or, with every limit null, remove) a tenant's quotas.
-- Guarantees: a null limit is no limit; 0 forbids (no new channel, no append). The
-- measured usage of the tenant is kept. A tenant given limits has its name recorded
-- (actae._remember_tenant). Operator only (actae_operator).
-- p_tenant is the tenant role's name (as rolname, not quoted).
-- Raises: AC400 tenant null, empty, or not a tenant (a role granted actae_agent directly:
-- actae._tenant_role; a tenant's login is not one), or a limit outside 0 ..
-- 9223372036854775806 (bigint's largest but one, as for cursors; naming the argument).
create or replace function actae.set_quota(
    p_tenant text,
    p_max_channels bigint default null,
    p_max_bytes bigint default null,
    p_max_events_per_channel bigint default null
) returns setof actae.quotas
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_tenant oid;
    -- Read once, before the upsert: Citus refuses a non-IMMUTABLE function call in the DO
    -- UPDATE SET of an INSERT into a distributed (here reference) table.
    v_now timestamptz := actae._now();
begin
    perform actae._check_text(p_tenant, 'tenant', 63);
    v_tenant := actae._tenant_role(p_tenant);
    if v_tenant is null then
        perform actae._raise(
            'AC400', format('tenant %s is not a tenant (a role granted actae_agent)', p_tenant),
            jsonb_build_object('argument', 'tenant', 'tenant', p_tenant)
        );
    end if;
    perform actae._check_range(p_max_channels, 'max_channels', 0);
    perform actae._check_range(p_max_bytes, 'max_bytes', 0);
    perform actae._check_range(p_max_events_per_channel, 'max_events_per_channel', 0);
    if p_max_channels is null and p_max_bytes is null and p_max_events_per_channel is null then
        delete from actae.quotas as q where q.tenant = v_tenant;
        return;
    end if;
    perform actae._remember_tenant(v_tenant);
    return query
    insert into actae.quotas as q (
        tenant, max_channels, max_bytes, max_events_per_channel, set_at
    ) values (v_tenant, p_max_channels, p_max_bytes, p_max_events_per_channel, v_now)
    on conflict (tenant) do update set
        max_channels = excluded.max_channels,
        max_bytes = excluded.max_bytes,
        max_events_per_channel = excluded.max_events_per_channel,
        set_at = excluded.set_at
    returning q.*;
end;
$$;

-- actae.measure_usage — measure the bytes and channels of every tenant that has a quota and
-- record them in actae.quotas (used_bytes, used_channels, measured_at); returns the rows.
-- Guarantees: bytes are the stored size (pg_column_size, compressed as stored) of the
-- tenant's channel rows, events, snapshots, operation ids and executions. Reads those
-- tables whole (one pass each): run it periodically (the operator's cron, every minute or
-- so), not per request. Operator only.
create or replace function actae.measure_usage() returns setof actae.quotas
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    -- Read once, before the statement: Citus refuses a VOLATILE function in an UPDATE of a
    -- distributed (here reference) table.
    v_now timestamptz := actae._now();
begin
    return query
    with owned as (
        select c.channel_id, c.tenant from actae.channels as c
        where c.tenant in (select q.tenant from actae.quotas as q)
    ),
    sizes as (
        select c.channel_id, pg_column_size(c.*) as bytes from actae.channels as c
        union all select e.channel_id, pg_column_size(e.*) from actae.events as e
        union all select s.channel_id, pg_column_size(s.*) from actae.snapshots as s
        union all select p.channel_id, pg_column_size(p.*) from actae.operations as p
        union all select x.channel_id, pg_column_size(x.*) from actae.executions as x
    ),
    usage as (
        select o.tenant, count(distinct o.channel_id) as channels, sum(z.bytes)::bigint as bytes
        from owned as o
        inner join sizes as z on o.channel_id = z.channel_id
        group by o.tenant
    )

    update actae.quotas as q set
        used_bytes = coalesce(u.bytes, 0),
        used_channels = coalesce(u.channels, 0),
        measured_at = v_now
    from actae.quotas as q2
    left join usage as u on u.tenant = q2.tenant
    where q.tenant = q2.tenant
    returning q.*;
end;
$$;

-- actae._quota_exceeded — raise AC429 for quota p_quota of tenant p_tenant.
-- Guarantees: the message names the tenant, the quota, its limit and the usage; DETAIL
-- carries them as JSON (plus p_extra).
create or replace function actae._quota_exceeded(
    p_tenant oid,
    p_quota text,
    p_limit bigint,
    p_used bigint,
    p_extra jsonb default '{}'
) returns void
language plpgsql
stable
as $$
begin
    perform actae._raise(
        'AC429',
        format('tenant %s is at its quota %s of %s (it has %s)', p_tenant::regrole, p_quota,
            p_limit, p_used),
        jsonb_build_object(
            'tenant', p_tenant::regrole::text, 'quota', p_quota, 'limit', p_limit,
            'used', p_used
        ) || coalesce(p_extra, '{}'::jsonb)
    );
end;
$$;

-- actae._new_channel_tenant — the tenant that a channel p_channel_id about to be created
-- belongs to (actae._caller_tenant()), once its quotas allow one more channel.
-- Guarantees: for a tenant with a max_channels quota, creations are serialised per tenant
-- (a transaction advisory lock) and counted exactly, so the quota is never exceeded, also
-- by concurrent creators. A channel that already exists is not created again: its own
-- tenant comes back, with nothing counted or checked (so a login in several tenants may
-- use an existing channel of one of them; the caller's ownership check decides). The new
-- channel's tenant has its name recorded (actae._remember_tenant: one primary-key probe once
-- it is known). A tenant without a quota row pays one more primary-key probe. The count
-- needs a snapshot taken after the lock, which only READ COMMITTED gives (a REPEATABLE READ
-- or SERIALIZABLE snapshot predates the lock and misses channels created meanwhile), so a
-- creation that must be counted is refused in any other isolation level.
-- Raises: AC429 when the tenant has max_channels channels, or its measured bytes reached
-- max_bytes; AC400 from actae._caller_tenant; 0A000 (actae._not_read_committed) when the
-- tenant has a max_channels quota and the transaction is not READ COMMITTED.
create or replace function actae._new_channel_tenant(
    p_channel_id text
) returns oid
language plpgsql
volatile
as $$
declare
    v_tenant oid;
    v_quota actae.quotas;
    v_count bigint;
begin
    select c.tenant into v_tenant from actae.channels as c where c.channel_id = p_channel_id;
    if found then
        return v_tenant;
    end if;
    v_tenant := actae._caller_tenant();
    perform actae._remember_tenant(v_tenant);
    select q.* into v_quota from actae.quotas as q where q.tenant = v_tenant;
    if not found or (v_quota.max_channels is null and v_quota.max_bytes is null) then
        return v_tenant;
    end if;
    if coalesce(v_quota.used_bytes, 0) >= v_quota.max_bytes then
        perform actae._quota_exceeded(v_tenant, 'max_bytes', v_quota.max_bytes,
            coalesce(v_quota.used_bytes, 0),
            jsonb_build_object('measured_at', v_quota.measured_at));
    end if;
    if v_quota.max_channels is not null then
        if current_setting('transaction_isolation') <> 'read committed' then
            perform actae._not_read_committed('a channel creation under a max_channels quota');
        end if;
        -- 1633907810: Actae's channel-quota lock class (the purge guard's class + 1).
        perform pg_advisory_xact_lock(1633907810, v_tenant::integer);
        select count(*) into v_count from actae.channels as c where c.tenant = v_tenant;
        if v_count >= v_quota.max_channels then
            perform actae._quota_exceeded(v_tenant, 'max_channels', v_quota.max_channels,
                v_count, jsonb_build_object('channel_id', p_channel_id));
        end if;
    end if;
    return v_tenant;
end;
$$;

-- actae._check_append_quota — AC429 when the event an append has just put at p_channel's
-- head (p_channel is the row as the append updated it, in the appending transaction, which
-- the error undoes) passes its tenant's max_events_per_channel, or the tenant's measured
-- bytes reached max_bytes. One primary-key probe of actae.quotas per append; nothing when
-- the tenant has no row.
create or replace function actae._check_append_quota(
    p_channel actae.channels
) returns void
language plpgsql
stable
as $$
declare
    v_quota actae.quotas;
begin
    select q.* into v_quota from actae.quotas as q where q.tenant = p_channel.tenant;
    if not found then
        return;
    end if;
    if p_channel.head_cursor > v_quota.max_events_per_channel then
        perform actae._quota_exceeded(p_channel.tenant, 'max_events_per_channel',
            v_quota.max_events_per_channel, p_channel.head_cursor - 1,
            jsonb_build_object('channel_id', p_channel.channel_id));
    end if;
    if coalesce(v_quota.used_bytes, 0) >= v_quota.max_bytes then
        perform actae._quota_exceeded(p_channel.tenant, 'max_bytes', v_quota.max_bytes,
            coalesce(v_quota.used_bytes, 0), jsonb_build_object(
                'channel_id', p_channel.channel_id, 'measured_at', v_quota.measured_at));
    end if;
end;
$$;

-- actae._check_watch_cap — AC429 when registering a watch on p_channel would give its
-- tenant more than _limit('watched_channels') channels watched at once. Renewing a live
-- registration is always allowed. Serialised per tenant (transaction advisory lock) so
-- concurrent registrations cannot pass the cap together; counts from channels_watched_idx,
-- under a snapshot taken after the lock: a new registration is refused in a transaction
-- that is not READ COMMITTED (its older snapshot would miss concurrent registrations).
-- Raises: AC429 at the cap; 0A000 (actae._not_read_committed) for a new registration in a
-- REPEATABLE READ or SERIALIZABLE transaction.
create or replace function actae._check_watch_cap(
    p_channel actae.channels,
    p_now timestamptz
) returns void
language plpgsql
volatile
as $$
declare
    v_count bigint;
begin
    if p_channel.watched_until > p_now then
        return;
    end if;
    if current_setting('transaction_isolation') <> 'read committed' then
        perform actae._not_read_committed('a new watch registration');
    end if;
    -- 1633907812: Actae's watch-cap lock class, keyed by tenant (a class of its own, in the
    -- two-key form of the advisory locks; the channel guards use the one-key form,
    -- actae._guard_key).
    perform pg_advisory_xact_lock(1633907812, p_channel.tenant::integer);
    select count(*) into v_count from actae.channels as c
    where c.tenant = p_channel.tenant and c.watched_until > p_now;
    if v_count >= actae._limit('watched_channels') then
        perform actae._quota_exceeded(p_channel.tenant, 'watched_channels',
            actae._limit('watched_channels'), v_count,
            jsonb_build_object('channel_id', p_channel.channel_id));
    end if;
end;
$$;
