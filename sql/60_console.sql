-- Reads for people looking at runs (the console, psql, the CLI) and channel annotations.
--
--   list_channels(...)                    channels/runs, filtered, newest first, keyset pages
--   timeline(channel_id, after_clock, max_rows)
--                                         events and tool-execution points in clock order
--   fork_tree(channel_id, max_rows)       the root of a channel's tree and every descendant
--   diff_states(channel_a, channel_b, max_changes)
--                                         common ancestor, fork cursors, structural state diff
--   decision_trail(channel_id, cursor, max_results)
--                                         lineage, event, state and known tool results
--   annotate_channel(channel_id, display_name, tags, note, expected_revision)
--                                         the only write here: fenced by revision
--
-- None of them returns a claim_token. The reads write nothing and add no write to the
-- append or claim path: the timeline orders by the clock that appends, forks and
-- completions already keep (see fork_channel).

-- actae._segments — the lineage segments a channel's history is read from, root first and
-- the channel itself last: segment `depth` supplies the events of channel_id in
-- (base_cursor, max_cursor] and its executions completed up to max_clock (both null for the
-- channel itself: everything). clock_offset makes the clocks of successive segments one
-- increasing sequence (each channel's own clock starts at 0).
create or replace function actae._segments(
    p_channel actae.channels
) returns table (
    depth integer,
    channel_id text,
    base_cursor bigint,
    max_cursor bigint,
    max_clock bigint,
    clock_offset bigint
)
language sql
stable
as $$
    select
        s.depth::integer,
        s.channel_id,
        coalesce(lag(s.max_cursor) over (order by s.depth), 0),
        s.max_cursor,
        s.max_clock,
        coalesce(sum(s.max_clock + 1) over (
            order by s.depth rows between unbounded preceding and 1 preceding
        ), 0)
    from unnest(
        array_append(p_channel.lineage_ids, p_channel.channel_id),
        array_append(p_channel.lineage_cursors, null::bigint),
        array_append(p_channel.lineage_clocks, null::bigint)
    ) with ordinality as s (channel_id, max_cursor, max_clock, depth)
    order by s.depth;
$$;

-- actae._last_event — the last own event of p_channel_id with cursor in (p_lo, p_hi] that was
-- recorded at or before p_at (when p_at is given) or whose clock is at most p_clock: its
-- cursor and clock, or nulls. A binary search over the primary key (cursor order is clock
-- order and recorded_at order: appends are serialised by the channel row lock), so it reads
-- about log2(events) rows and needs no index on recorded_at or clock.
create or replace function actae._last_event(
    p_channel_id text,
    p_lo bigint,
    p_hi bigint,
    p_at timestamptz,
    p_clock bigint,
    out o_cursor bigint,
    out o_clock bigint
)
language plpgsql
stable
as $$
declare
    v_lo bigint := p_lo + 1;
    v_hi bigint := p_hi;
    v_mid bigint;
    v_at timestamptz;
    v_clock bigint;
begin
    while v_lo <= v_hi loop
        v_mid := v_lo + (v_hi - v_lo) / 2;
        select e.recorded_at, e.clock into v_at, v_clock from actae.events as e
        where e.channel_id = p_channel_id and e.cursor = v_mid;
        if not found then
            v_hi := v_mid - 1;
        elsif (p_at is not null and v_at <= p_at) or (p_clock is not null and v_clock <= p_clock)
            then
            o_cursor := v_mid;
            o_clock := v_clock;
            v_lo := v_mid + 1;
        else
            v_hi := v_mid - 1;
        end if;
    end loop;
end;
$$;

-- actae._channel_health — executions of one channel (its own rows): how many, how many in
-- flight (claimed / in_progress), failed, and ambiguous (the current attempt followed one
-- that left no outcome).
create or replace function actae._channel_health(
    p_channel_id text,
    out o_executions bigint,
    out o_in_flight bigint,
    out o_failed bigint,
    out o_ambiguous bigint
)
language plpgsql
stable
as $$
begin
    select
        count(*),
        count(*) filter (where e.status in ('claimed', 'in_progress')),
        count(*) filter (where e.status = 'failed'),
        count(*) filter (where e.ambiguous)
    into o_executions, o_in_flight, o_failed, o_ambiguous
    from actae.executions as e
    where e.channel_id = p_channel_id;
end;
$$;

-- actae.list_channels — channels (with their run, annotations and ledger health), newest
-- first, at most max_rows (1..1000).
-- Filters (all optional, combined with AND): metadata contains p_metadata (jsonb @>); forks
-- of p_parent_channel_id; created in [created_after, created_before); the channel's run has
-- status p_status / agent p_agent (channels without a run never match these two); tagged
-- p_tag. Keyset pagination: pass the created_at and channel_id of the last row of a page as
-- before_created_at / before_channel_id (both or neither) to get the next page; rows added
-- meanwhile never shift a page. While that channel exists with a created_at within a
-- millisecond of before_created_at (and the caller may read it), its own created_at is the
-- cursor's: a time sent back cut to milliseconds (a JavaScript Date) skips no row; the time
-- given counts otherwise (the channel purged, or purged and created again since). A caller
-- in a tenant lists its tenants' channels only; a
-- caller in none (a global auditor or operator) every channel.
-- last_event_at is when the channel's head event was recorded, wherever it is in its lineage
-- (a fork with no event of its own shows the one it was forked at); null at cursor 0.
-- Raises: AC400 bad argument (the message names it).
create or replace function actae.list_channels(
    p_metadata jsonb default null,
    p_parent_channel_id text default null,
    p_created_after timestamptz default null,
    p_created_before timestamptz default null,
    p_status text default null,
    p_agent text default null,
    p_tag text default null,
    p_before_created_at timestamptz default null,
    p_before_channel_id text default null,
    p_max_rows integer default 50
) returns setof actae.channel_summary
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_roles oid [] := actae._readable();
    v_row record;
    v_channel actae.channels;
    v_last timestamptz;
    v_health record;
    v_before timestamptz := p_before_created_at;
begin
    if p_metadata is not null and jsonb_typeof(p_metadata) <> 'object' then
        perform actae._raise(
            'AC400', 'metadata must be a JSON object',
            jsonb_build_object('argument', 'metadata', 'type', jsonb_typeof(p_metadata))
        );
    end if;
    if p_metadata is not null then  -- a filter within what metadata itself may be
        perform actae._check_json(p_metadata, 'metadata');
    end if;
    if p_parent_channel_id is not null then
        perform actae._check_text(p_parent_channel_id, 'parent_channel_id', 256);
    end if;
    if p_status not in (
        'queued', 'running', 'sleeping', 'waiting', 'completed', 'failed', 'cancelled'
    ) then
        perform actae._raise(
            'AC400',
            'status must be queued, running, sleeping, waiting, completed, failed or cancelled',
            jsonb_build_object('argument', 'status', 'status', p_status)
        );
    end if;
    if p_agent is not null then
        perform actae._check_text(p_agent, 'agent', 256);
    end if;
    if p_tag is not null then
        perform actae._check_text(p_tag, 'tag', 64);
    end if;
    if p_before_channel_id is not null then
        perform actae._check_text(p_before_channel_id, 'before_channel_id', 256);
    end if;
    if (p_before_created_at is null) <> (p_before_channel_id is null) then
        perform actae._raise(
            'AC400', 'before_created_at and before_channel_id go together',
            jsonb_build_object(
                'argument', 'before_channel_id', 'before_created_at', p_before_created_at,
                'before_channel_id', p_before_channel_id
            )
        );
    end if;
    perform actae._require(p_max_rows is null, 'max_rows');
    perform actae._check_range(p_max_rows, 'max_rows', 1, 1000);
    if p_before_channel_id is not null then
        select coalesce(max(c.created_at), v_before) into v_before from actae.channels as c
        where c.channel_id = p_before_channel_id and (v_roles is null or c.tenant = any(v_roles))
            and c.created_at > p_before_created_at - interval '1 millisecond'
            and c.created_at < p_before_created_at + interval '1 millisecond';
    end if;
    if current_setting('citus.version', true) is not null then
        -- On Citus: the page with a plain multi-shard query (tables joined on channel_id, no
        -- function of a row, which Citus would send to the shards), then each row's health
        -- and inherited head event by its channel (router queries), in the page's order.
        for v_row in
            select
                c.channel_id, c.created_at, c.parent_channel_id, c.fork_cursor, c.head_cursor,
                c.state_version, c.metadata, c.closed_at, ev.recorded_at,
                r.status, r.agent, a.display_name, coalesce(a.tags, '{}'::text []) as tags,
                a.note, coalesce(a.revision, 0) as revision
            from actae.channels as c
            left join actae.runs as r on r.channel_id = c.channel_id
            left join actae.annotations as a on a.channel_id = c.channel_id
            left join actae.events as ev
                on ev.channel_id = c.channel_id and ev.cursor = c.head_cursor
            where (p_metadata is null or c.metadata @> p_metadata)
                and (p_parent_channel_id is null or c.parent_channel_id = p_parent_channel_id)
                and (p_created_after is null or c.created_at >= p_created_after)
                and (p_created_before is null or c.created_at < p_created_before)
                and (p_status is null or r.status = p_status)
                and (p_agent is null or r.agent = p_agent)
                and (p_tag is null or p_tag = any(a.tags))
                and (v_roles is null or c.tenant = any(v_roles))
                and (
                    v_before is null
                    or (c.created_at, c.channel_id) < (v_before, p_before_channel_id)
                )
            order by c.created_at desc, c.channel_id desc
            limit p_max_rows
        loop
            v_last := v_row.recorded_at;
            if v_last is null and v_row.head_cursor > 0 and v_row.parent_channel_id is not null
                then
                select c.* into v_channel from actae.channels as c
                where c.channel_id = v_row.channel_id;
                v_last := (actae._event_at(v_channel, v_row.head_cursor)).recorded_at;
            end if;
            select h.* into v_health from actae._channel_health(v_row.channel_id) as h;
            return next row(
                v_row.channel_id, v_row.created_at, v_row.parent_channel_id, v_row.fork_cursor,
                v_row.head_cursor, v_row.state_version, v_row.metadata, v_row.closed_at, v_last,
                v_row.status, v_row.agent, v_health.o_executions, v_health.o_in_flight,
                v_health.o_failed, v_health.o_ambiguous, v_row.display_name, v_row.tags,
                v_row.note, v_row.revision
            )::actae.channel_summary;
        end loop;
        return;
    end if;
    return query
    select
        c.channel_id, c.created_at, c.parent_channel_id, c.fork_cursor, c.head_cursor,
        c.state_version, c.metadata, c.closed_at,
        -- the head event is the channel's own, or (a fork with none) one it inherits
        coalesce(ev.recorded_at, case
            when c.head_cursor > 0 and c.parent_channel_id is not null
                then (actae._event_at(c, c.head_cursor)).recorded_at
        end),
        r.status, r.agent,
        h.o_executions, h.o_in_flight, h.o_failed, h.o_ambiguous,
        a.display_name, coalesce(a.tags, '{}'::text []), a.note, coalesce(a.revision, 0)
    from actae.channels as c
    left join actae.runs as r on r.channel_id = c.channel_id
    left join actae.annotations as a on a.channel_id = c.channel_id
    left join actae.events as ev
        on ev.channel_id = c.channel_id and ev.cursor = c.head_cursor
    cross join lateral actae._channel_health(c.channel_id) as h
    where (p_metadata is null or c.metadata @> p_metadata)
        and (p_parent_channel_id is null or c.parent_channel_id = p_parent_channel_id)
        and (p_created_after is null or c.created_at >= p_created_after)
        and (p_created_before is null or c.created_at < p_created_before)
        and (p_status is null or r.status = p_status)
        and (p_agent is null or r.agent = p_agent)
        and (p_tag is null or p_tag = any(a.tags))
        and (v_roles is null or c.tenant = any(v_roles))
        and (
            v_before is null
            or (c.created_at, c.channel_id) < (v_before, p_before_channel_id)
        )
    order by c.created_at desc, c.channel_id desc
    limit p_max_rows;
end;
$$;

-- actae.timeline — a channel's history as it happened: its events (a fork's inherited prefix
-- included) and the points in the life of its tool executions — claimed (attempt 1),
-- reclaimed (the current attempt, with ambiguous), completed, failed, cancelled (failed by a
-- cancellation) and cancel_requested — in clock order, rows with clock > after_clock
-- (null: from the start).
-- Guarantees:
--   * clock is the channel's logical clock (appends and forks bump it): an event has its own
--     clock; a completion the clock it read when it completed, so it sits exactly between
--     the events it happened between; claims, reclaims and failures do not read the clock,
--     so they take the clock of the last event recorded before them (found by timestamp).
--     In a fork, each lineage segment's clocks are shifted after the previous segment's, so
--     the clock grows through the whole timeline. Within one clock: the event, then the
--     execution points by time. cursor is the event's cursor, or for an execution point the
--     last event before it.
--   * The ledger keeps the current attempt of an execution, so a point that a later attempt
--     replaced (an earlier reclaim, a retryable failure) is not shown; attempt says how many
--     there were. A fork shows only the executions it inherits (completed in its prefix).
--   * Pages never split a clock: a page holds at most max_rows rows (1..10000) and ends at
--     a whole clock, so the next page is after_clock = the last row's clock. Only when one
--     clock alone has more points than max_rows is that clock returned whole.
--   * No claim_token; nothing written.
-- Raises: AC400 bad argument, AC404 unknown channel.
create or replace function actae.timeline(
    p_channel_id text,
    p_after_clock bigint default null,
    p_max_rows integer default 100
) returns setof actae.timeline_row
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_channel actae.channels := actae._channel(p_channel_id);
    v_after bigint := coalesce(p_after_clock, -1);
    v_seg record;
    v_hi bigint;
    v_start bigint;
    v_lo bigint;
    v_t_lo timestamptz;
    v_t_hi timestamptz;
    v_e record;
    v_x record;
    v_pt record;
    v_le record;
    v_rows actae.timeline_row [] := '{}'::actae.timeline_row [];
begin
    perform actae._check_range(p_after_clock, 'after_clock', 0, 9223372036854775806);
    perform actae._require(p_max_rows is null, 'max_rows');
    perform actae._check_range(p_max_rows, 'max_rows', 1, 10000);
    if current_setting('citus.version', true) is not null then
        -- On Citus (a segment's rows joined with ledger tables, or a function reading them
        -- called inside a query on a shard, are refused): the same points, segment by
        -- segment, each read by its channel (router queries) into an array; then the same
        -- order and page as below over that array. Events rank before execution points.
        for v_seg in select s.* from actae._segments(v_channel) as s order by s.depth loop
            v_hi := coalesce(v_seg.max_cursor, v_channel.head_cursor);
            select le.o_cursor into v_start
            from actae._last_event(
                v_seg.channel_id, v_seg.base_cursor, v_hi, null, v_after - v_seg.clock_offset
            ) as le;
            v_lo := coalesce(v_start, v_seg.base_cursor);
            v_t_lo := '-infinity'::timestamptz;
            if v_start is not null then
                select i.recorded_at into v_t_lo from actae.events as i
                where i.channel_id = v_seg.channel_id and i.cursor = v_start + 1
                    and i.cursor <= v_hi;
                v_t_lo := coalesce(v_t_lo, 'infinity'::timestamptz);
            end if;
            select i.recorded_at into v_t_hi from actae.events as i
            where i.channel_id = v_seg.channel_id and i.cursor = v_lo + p_max_rows + 1
                and i.cursor <= v_hi;
            v_t_hi := coalesce(v_t_hi, 'infinity'::timestamptz);
            for v_e in
                select i.clock, i.cursor, i.recorded_at, i.event_type, i.payload
                from actae.events as i
                where i.channel_id = v_seg.channel_id
                    and i.cursor > v_lo
                    and i.cursor <= v_hi
                order by i.cursor
                limit p_max_rows + 1
            loop
                continue when v_e.clock + v_seg.clock_offset <= v_after;
                v_rows := v_rows || row(
                    v_e.clock + v_seg.clock_offset, v_e.cursor, 'event', v_e.recorded_at,
                    v_seg.channel_id, v_e.event_type, v_e.payload, null, null, null, null,
                    null, null, null, null, null, null
                )::actae.timeline_row;
            end loop;
            for v_x in
                select
                    x.execution_id, x.key_name, x.tool_name, x.attempt, x.status,
                    x.ambiguous, x.retryable, x.params, x.result, x.error, x.cancel_reason,
                    x.created_at, x.claimed_at, x.finished_at, x.cancel_requested_at,
                    x.completed_clock
                from actae.executions as x
                where x.channel_id = v_seg.channel_id
                    and (
                        v_seg.max_clock is null
                        or (x.status = 'completed' and x.completed_clock <= v_seg.max_clock)
                    )
                    and x.created_at < v_t_hi
                    and (
                        greatest(x.created_at, x.claimed_at, x.finished_at, x.cancel_requested_at)
                        >= v_t_lo
                        or x.completed_clock > v_after - v_seg.clock_offset
                    )
            loop
                for v_pt in
                    select pt.* from (
                        values
                        (
                            'claimed', v_x.created_at, null::bigint, 1, false, v_x.params,
                            null::jsonb, null
                        ),
                        (
                            case when v_x.attempt > 1 then 'reclaimed' end, v_x.claimed_at,
                            null, v_x.attempt, v_x.ambiguous, v_x.params, null, null
                        ),
                        (
                            case when v_x.status = 'completed' then 'completed' end,
                            v_x.finished_at, v_x.completed_clock, v_x.attempt, v_x.ambiguous,
                            null, v_x.result, null
                        ),
                        (
                            case
                                when v_x.status = 'cancelled' then 'cancelled'
                                when v_x.status = 'failed' then 'failed'
                            end,
                            v_x.finished_at, null, v_x.attempt, v_x.ambiguous, null, null,
                            v_x.error
                        ),
                        (
                            case
                                when v_x.cancel_requested_at is not null
                                    and v_x.status not in ('failed', 'cancelled')
                                    then 'cancel_requested'
                            end,
                            v_x.cancel_requested_at, null, v_x.attempt, v_x.ambiguous, null,
                            null, v_x.cancel_reason
                        )
                    ) as pt (kind, at, clock, attempt, ambiguous, params, result, error)
                    where pt.kind is not null
                loop
                    select le.o_cursor, le.o_clock into v_le
                    from actae._last_event(
                        v_seg.channel_id, v_seg.base_cursor, v_hi,
                        case when v_pt.clock is null then v_pt.at end, v_pt.clock
                    ) as le;
                    v_rows := v_rows || row(
                        coalesce(v_pt.clock, v_le.o_clock, 0) + v_seg.clock_offset,
                        coalesce(v_le.o_cursor, v_seg.base_cursor), v_pt.kind, v_pt.at,
                        v_seg.channel_id, null, null, v_x.execution_id, v_x.key_name,
                        v_x.tool_name, v_pt.attempt, v_x.status, v_pt.ambiguous,
                        v_x.retryable, v_pt.params, v_pt.result, v_pt.error
                    )::actae.timeline_row;
                end loop;
            end loop;
        end loop;
        return query
        with ordered as (
            select
                p.*,
                row_number() over (
                    order by p.clock, (p.kind <> 'event')::integer, p.at, p.execution_id, p.kind
                ) as rn
            from unnest(v_rows) as p
            where p.clock > v_after
        ),

        bounds as (
            select
                min(o.clock) as first_clock,
                max(o.clock) filter (where o.rn = p_max_rows + 1) as next_clock
            from ordered as o
            where o.rn <= p_max_rows + 1
        )

        select
            o.clock, o.cursor, o.kind, o.at, o.source_channel_id, o.event_type, o.payload,
            o.execution_id, o.key_name, o.tool_name, o.attempt, o.status, o.ambiguous,
            o.retryable, o.params, o.result, o.error
        from ordered as o
        cross join bounds as b
        where (b.next_clock is null and o.rn <= p_max_rows)
            or (b.next_clock is not null and b.next_clock > b.first_clock
                and o.clock < b.next_clock)
            or (b.next_clock is not null and b.next_clock = b.first_clock
                and o.clock = b.first_clock)
        order by o.rn;
        return;
    end if;
    return query
    with seg as (
        -- Per segment: lo_cursor, the last event at or before after_clock; t_lo / t_hi,
        -- when the first event after it and the (max_rows + 1)th were recorded. A page
        -- can only hold execution points that happened between the two (or a completion
        -- whose clock is after after_clock), so only those executions are expanded.
        select
            s.*,
            b.hi_cursor,
            coalesce(start.o_cursor, s.base_cursor) as lo_cursor,
            case when start.o_cursor is null then '-infinity'::timestamptz
                else coalesce((
                    select i.recorded_at from actae.events as i
                    where i.channel_id = s.channel_id and i.cursor = start.o_cursor + 1
                        and i.cursor <= b.hi_cursor
                ), 'infinity')
            end as t_lo,
            coalesce((
                select i.recorded_at from actae.events as i
                where i.channel_id = s.channel_id
                    and i.cursor = coalesce(start.o_cursor, s.base_cursor) + p_max_rows + 1
                    and i.cursor <= b.hi_cursor
            ), 'infinity') as t_hi
        from actae._segments(v_channel) as s
        cross join lateral (
            select coalesce(s.max_cursor, v_channel.head_cursor) as hi_cursor
        ) as b
        cross join lateral actae._last_event(
            s.channel_id, s.base_cursor, b.hi_cursor, null, v_after - s.clock_offset
        ) as start
    ),

    points as (
        select
            e.clock + s.clock_offset as clock, e.cursor, 'event'::text as kind,
            e.recorded_at as at, s.channel_id as source_channel_id, e.event_type,
            e.payload, null::uuid as execution_id, null::text as key_name,
            null::text as tool_name, null::integer as attempt, null::text as status,
            null::boolean as ambiguous, null::boolean as retryable, null::jsonb as params,
            null::jsonb as result, null::text as error, 0 as rank
        from seg as s
        cross join lateral (
            select i.* from actae.events as i
            where i.channel_id = s.channel_id
                and i.cursor > s.lo_cursor
                and i.cursor <= s.hi_cursor
            order by i.cursor
            limit p_max_rows + 1
        ) as e
        where e.clock + s.clock_offset > v_after
        union all
        select
            coalesce(pt.clock, le.o_clock, 0) + s.clock_offset, coalesce(le.o_cursor,
                s.base_cursor), pt.kind, pt.at, s.channel_id, null, null, x.execution_id,
            x.key_name, x.tool_name, pt.attempt, x.status, pt.ambiguous, x.retryable,
            pt.params, pt.result, pt.error, 1
        from seg as s
        inner join actae.executions as x
            on x.channel_id = s.channel_id
            and (s.max_clock is null or (x.status = 'completed' and x.completed_clock <= s.max_clock))
            and x.created_at < s.t_hi
            and (
                greatest(x.created_at, x.claimed_at, x.finished_at, x.cancel_requested_at)
                >= s.t_lo
                or x.completed_clock > v_after - s.clock_offset
            )
        cross join lateral (
            values
            ('claimed', x.created_at, null::bigint, 1, false, x.params, null::jsonb, null),
            (
                case when x.attempt > 1 then 'reclaimed' end, x.claimed_at, null, x.attempt,
                x.ambiguous, x.params, null, null
            ),
            (
                case when x.status = 'completed' then 'completed' end, x.finished_at,
                x.completed_clock, x.attempt, x.ambiguous, null, x.result, null
            ),
            (
                case
                    when x.status = 'cancelled' then 'cancelled'
                    when x.status = 'failed' then 'failed'
                end,
                x.finished_at, null, x.attempt, x.ambiguous, null, null, x.error
            ),
            (
                case
                    when x.cancel_requested_at is not null
                        and x.status not in ('failed', 'cancelled')
                        then 'cancel_requested'
                end,
                x.cancel_requested_at, null, x.attempt, x.ambiguous, null, null,
                x.cancel_reason
            )
        ) as pt (kind, at, clock, attempt, ambiguous, params, result, error)
        cross join lateral actae._last_event(
            s.channel_id, s.base_cursor, s.hi_cursor,
            case when pt.clock is null then pt.at end, pt.clock
        ) as le
        where pt.kind is not null
    ),

    ordered as (
        select
            p.*,
            row_number() over (
                order by p.clock, p.rank, p.at, p.execution_id, p.kind
            ) as rn
        from points as p
        where p.clock > v_after
    ),

    bounds as (
        select
            min(o.clock) as first_clock,
            max(o.clock) filter (where o.rn = p_max_rows + 1) as next_clock
        from ordered as o
        where o.rn <= p_max_rows + 1
    )

    select
        o.clock, o.cursor, o.kind, o.at, o.source_channel_id, o.event_type, o.payload,
        o.execution_id, o.key_name, o.tool_name, o.attempt, o.status, o.ambiguous,
        o.retryable, o.params, o.result, o.error
    from ordered as o
    cross join bounds as b
    where (b.next_clock is null and o.rn <= p_max_rows)
        or (b.next_clock is not null and b.next_clock > b.first_clock
            and o.clock < b.next_clock)
        or (b.next_clock is not null and b.next_clock = b.first_clock
            and o.clock = b.first_clock)
    order by o.rn;
end;
$$;

-- actae.fork_tree — the tree a channel belongs to: its root (found by walking parents) and
-- every descendant fork, depth first (siblings by fork cursor, then id), at most max_rows
-- (1..10000), each with its fork cursor, tool policies, metadata, run status, ledger health
-- and annotations.
-- Guarantees: a tree cut at max_rows still holds the channel itself and its ancestors (the
-- nearest first, when they alone are more than max_rows); the other nodes are the first ones
-- depth first that fit beside them. Rows always come depth first.
-- Nodes of other tenants' channels are left out (a caller in no tenant sees them all).
-- Raises: AC400 bad argument, AC404 unknown channel (or one the caller may not read).
create or replace function actae.fork_tree(
    p_channel_id text,
    p_max_rows integer default 1000
) returns setof actae.fork_node
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_channel actae.channels := actae._channel(p_channel_id);
    v_root text;
    v_path text [];
    v_roles oid [] := actae._readable();
    v_parent text;
    v_id text;
    v_next text;
    v_depth integer := 0;
    v_level_ids text [];
    v_level_keys text [];
    v_child_ids text [];
    v_child_forks bigint [];
    v_child_parents text [];
    v_child_tenants oid [];
    v_ids text [];
    v_depths integer [];
    v_keys text [];
    v_tenants oid [];
    v_node record;
    v_row record;
    v_health record;
begin
    perform actae._require(p_max_rows is null, 'max_rows');
    perform actae._check_range(p_max_rows, 'max_rows', 1, 10000);
    if current_setting('citus.version', true) is not null then
        -- On Citus (a recursive CTE over distributed tables needs a filter on channel_id):
        -- the same walk, up parent by parent (router queries) and down level by level (the
        -- children of a level by parent_channel_id), kept in arrays (a sort key as the text
        -- of its array); the same nodes, cap and order as below; then each node's channel,
        -- run, annotations and health by its channel.
        v_path := array[v_channel.channel_id];
        v_parent := v_channel.parent_channel_id;
        if v_parent is null then
            v_root := v_channel.channel_id;
        end if;
        while v_parent is not null loop
            select c.channel_id, c.parent_channel_id into v_id, v_next from actae.channels as c
            where c.channel_id = v_parent;
            exit when not found;
            v_path := v_path || v_id;
            if v_next is null then
                v_root := v_id;
            end if;
            v_parent := v_next;
        end loop;
        if v_root is null then
            return;
        end if;
        select array[c.tenant] into v_tenants from actae.channels as c where c.channel_id = v_root;
        v_ids := array[v_root];
        v_depths := array[0];
        v_keys := array[(array[''::text])::text];
        v_level_ids := v_ids;
        v_level_keys := v_keys;
        loop
            select
                array_agg(c.channel_id), array_agg(c.fork_cursor), array_agg(c.parent_channel_id),
                array_agg(c.tenant)
            into v_child_ids, v_child_forks, v_child_parents, v_child_tenants
            from actae.channels as c
            where c.parent_channel_id = any(v_level_ids);
            exit when v_child_ids is null;
            v_depth := v_depth + 1;
            select
                array_agg(n.channel_id order by n.ord),
                array_agg(
                    (
                        l.sort_key::text []
                        || (lpad(n.fork_cursor::text, 20, '0') || ':' || n.channel_id)
                    )::text
                    order by n.ord
                )
            into v_level_ids, v_level_keys
            from unnest(v_child_ids, v_child_forks, v_child_parents)
                with ordinality as n (channel_id, fork_cursor, parent_channel_id, ord)
            inner join unnest(v_ids, v_keys) as l (channel_id, sort_key)
                on l.channel_id = n.parent_channel_id;
            v_ids := v_ids || v_level_ids;
            v_keys := v_keys || v_level_keys;
            v_tenants := v_tenants || v_child_tenants;
            v_depths := v_depths || array_fill(v_depth, array[cardinality(v_level_ids)]);
        end loop;
        for v_node in
            with visible as (
                select
                    n.channel_id, n.depth, n.sort_key::text [] as sort_key,
                    array_position(v_path, n.channel_id) as distance
                from unnest(v_ids, v_depths, v_keys, v_tenants)
                    as n (channel_id, depth, sort_key, tenant)
                where v_roles is null or n.tenant = any(v_roles)
            ),

            ancestry as (
                select v.channel_id, v.depth, v.sort_key from visible as v
                where v.distance is not null
                order by v.distance
                limit p_max_rows
            ),

            kept as (
                select p.channel_id, p.depth, p.sort_key from ancestry as p
                union all
                (
                    select v.channel_id, v.depth, v.sort_key from visible as v
                    where v.distance is null
                    order by v.sort_key
                    limit p_max_rows - (select count(*) from ancestry)
                )
            )

            select k.channel_id, k.depth from kept as k order by k.sort_key
        loop
            select
                c.channel_id, c.parent_channel_id, c.fork_cursor, c.head_cursor, c.state_version,
                c.tool_policies::jsonb as tool_policies, c.metadata, c.created_at, c.closed_at,
                r.status, a.display_name, coalesce(a.tags, '{}'::text []) as tags, a.note
            into v_row
            from actae.channels as c
            left join actae.runs as r on r.channel_id = c.channel_id
            left join actae.annotations as a on a.channel_id = c.channel_id
            where c.channel_id = v_node.channel_id;
            continue when not found;
            select h.* into v_health from actae._channel_health(v_node.channel_id) as h;
            return next row(
                v_row.channel_id, v_row.parent_channel_id, v_row.fork_cursor, v_node.depth,
                v_row.head_cursor, v_row.state_version, v_row.tool_policies, v_row.metadata,
                v_row.created_at, v_row.closed_at, v_row.status, v_health.o_in_flight,
                v_health.o_failed, v_health.o_ambiguous, v_row.display_name, v_row.tags,
                v_row.note
            )::actae.fork_node;
        end loop;
        return;
    end if;
    -- v_path: the channel, then its ancestors up to the root (v_root).
    with recursive up (channel_id, parent_channel_id, distance) as (
        select v_channel.channel_id, v_channel.parent_channel_id, 1
        union all
        select c.channel_id, c.parent_channel_id, u.distance + 1
        from up as u
        inner join actae.channels as c on c.channel_id = u.parent_channel_id
    )

    select
        max(u.channel_id) filter (where u.parent_channel_id is null),
        array_agg(u.channel_id order by u.distance)
    into v_root, v_path
    from up as u;
    return query
    with recursive down (channel_id, depth, sort_key) as (
        select v_root, 0, array[''::text]
        union all
        select
            c.channel_id, d.depth + 1,
            d.sort_key || (lpad(c.fork_cursor::text, 20, '0') || ':' || c.channel_id)
        from down as d
        inner join actae.channels as c on c.parent_channel_id = d.channel_id
    ),

    visible as (
        select d.channel_id, d.depth, d.sort_key, array_position(v_path, d.channel_id) as distance
        from down as d
        inner join actae.channels as c on c.channel_id = d.channel_id
        where v_roles is null or c.tenant = any(v_roles)
    ),

    ancestry as (
        select v.channel_id, v.depth, v.sort_key from visible as v
        where v.distance is not null
        order by v.distance
        limit p_max_rows
    ),

    kept as (
        select p.channel_id, p.depth, p.sort_key from ancestry as p
        union all
        (
            select v.channel_id, v.depth, v.sort_key from visible as v
            where v.distance is null
            order by v.sort_key
            limit p_max_rows - (select count(*) from ancestry)
        )
    )

    select
        c.channel_id, c.parent_channel_id, c.fork_cursor, d.depth, c.head_cursor,
        c.state_version, c.tool_policies::jsonb, c.metadata, c.created_at, c.closed_at, r.status,
        h.o_in_flight, h.o_failed, h.o_ambiguous, a.display_name,
        coalesce(a.tags, '{}'::text []), a.note
    from kept as d
    inner join actae.channels as c on c.channel_id = d.channel_id
    left join actae.runs as r on r.channel_id = c.channel_id
    left join actae.annotations as a on a.channel_id = c.channel_id
    cross join lateral actae._channel_health(c.channel_id) as h
    order by d.sort_key;
end;
$$;

-- actae.diff_states — how two channels relate and how their latest states differ.
-- Guarantees: common_ancestor is the nearest channel both descend from (walking parents; a
-- channel counts as its own ancestor), null when they share none; cursor_a / cursor_b are
-- the last events of that ancestor each one sees (its head for the ancestor itself), so
-- shared_cursor = least of the two is where they part. changes lists, in path order (keys
-- as text, array indexes as numbers: 2 before 10), every
-- leaf where the two latest states differ: {"path": [...], "op": "added" | "removed" |
-- "changed", "a": value in a, "b": value in b}; objects are compared key by key and arrays
-- index by index; a value whose type differs is one change. At most max_changes
-- (1..10000) are listed; truncated says when there were more.
-- Raises: AC400 bad argument, AC404 unknown channel.
create or replace function actae.diff_states(
    p_channel_a text,
    p_channel_b text,
    p_max_changes integer default 1000
) returns actae.state_diff
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_a actae.channels;
    v_b actae.channels;
    v_state_a actae.state_row;
    v_state_b actae.state_row;
    v_result actae.state_diff;
    v_count bigint;
    v_origin text;
    v_id text;
    v_parent text;
    v_fork bigint;
    v_view bigint;
    v_generation integer;
    v_origins text [] := '{}'::text [];
    v_ids text [] := '{}'::text [];
    v_generations integer [] := '{}'::integer [];
    v_views bigint [] := '{}'::bigint [];
begin
    -- Each argument named in its own error (the channel reads below say channel_id).
    perform actae._check_text(p_channel_a, 'channel_a', actae._limit('channel_id')::integer);
    perform actae._check_text(p_channel_b, 'channel_b', actae._limit('channel_id')::integer);
    v_a := actae._channel(p_channel_a);
    v_b := actae._channel(p_channel_b);
    perform actae._require(p_max_changes is null, 'max_changes');
    perform actae._check_range(p_max_changes, 'max_changes', 1, 10000);
    v_result.channel_a := v_a.channel_id;
    v_result.channel_b := v_b.channel_id;
    if current_setting('citus.version', true) is not null then
        -- On Citus (a recursive CTE over distributed tables needs a filter on channel_id):
        -- each channel's walk up to its root parent by parent (router queries) into arrays,
        -- then the same choice of the nearest common ancestor over them.
        foreach v_origin in array array[v_a.channel_id, v_b.channel_id] loop
            v_id := v_origin;
            v_generation := 0;
            select c.head_cursor into v_view from actae.channels as c
            where c.channel_id = v_origin;
            loop
                v_origins := v_origins || v_origin;
                v_ids := v_ids || v_id;
                v_generations := v_generations || v_generation;
                v_views := v_views || v_view;
                select c.parent_channel_id, c.fork_cursor into v_parent, v_fork
                from actae.channels as c
                where c.channel_id = v_id;
                exit when not found or v_parent is null;
                v_id := v_parent;
                v_generation := v_generation + 1;
                v_view := least(v_view, v_fork);
            end loop;
        end loop;
        select wa.channel_id, wa.view_cursor, wb.view_cursor
        into v_result.common_ancestor, v_result.cursor_a, v_result.cursor_b
        from unnest(v_origins, v_ids, v_generations, v_views)
            as wa (origin, channel_id, generation, view_cursor)
        inner join unnest(v_origins, v_ids, v_generations, v_views)
            as wb (origin, channel_id, generation, view_cursor)
            on wa.channel_id = wb.channel_id
        where wa.origin = v_a.channel_id and wb.origin = v_b.channel_id
        order by wa.generation, wb.generation
        limit 1;
    else
        with recursive walk (origin, channel_id, generation, view_cursor) as (
            select c.channel_id, c.channel_id, 0, c.head_cursor
            from actae.channels as c
            where c.channel_id in (v_a.channel_id, v_b.channel_id)
            union all
            select
                w.origin, c.parent_channel_id, w.generation + 1,
                least(w.view_cursor, c.fork_cursor)
            from walk as w
            inner join actae.channels as c on c.channel_id = w.channel_id
            where c.parent_channel_id is not null
        )

        select wa.channel_id, wa.view_cursor, wb.view_cursor
        into v_result.common_ancestor, v_result.cursor_a, v_result.cursor_b
        from walk as wa
        inner join walk as wb on wa.channel_id = wb.channel_id
        where wa.origin = v_a.channel_id and wb.origin = v_b.channel_id
        order by wa.generation, wb.generation
        limit 1;
    end if;
    v_result.shared_cursor := least(v_result.cursor_a, v_result.cursor_b);

    v_state_a := actae._state_at(v_a, null, v_a.state_version);
    v_state_b := actae._state_at(v_b, null, v_b.state_version);
    v_result.version_a := v_state_a.version;
    v_result.version_b := v_state_b.version;

    -- sort_key: the path with each array index zero-padded, so indexes sort as numbers
    -- (siblings are all keys or all indexes: both states hold an object, or both an array).
    with recursive walk (path, sort_key, a, b) as (
        select '{}'::text [], '{}'::text [], v_state_a.state, v_state_b.state
        union all
        select
            w.path || k.key,
            w.sort_key || k.sort_key,
            jsonb_extract_path(w.a, k.key),
            jsonb_extract_path(w.b, k.key)
        from walk as w
        cross join lateral (
            select
                o.key,
                o.key as sort_key
            from jsonb_object_keys(
                case when jsonb_typeof(w.a) = 'object' and jsonb_typeof(w.b) = 'object'
                        then w.a || w.b
                end
            ) as o (key)
            union all
            select
                n.i::text,
                lpad(n.i::text, 10, '0')
            from generate_series(
                0,
                case when jsonb_typeof(w.a) = 'array' and jsonb_typeof(w.b) = 'array'
                        then greatest(jsonb_array_length(w.a), jsonb_array_length(w.b)) - 1
                    else -1
                end
            ) as n (i)
        ) as k
        where w.a is distinct from w.b
    ),

    leaves as (
        select
            w.path,
            w.sort_key,
            case when w.a is null then 'added' when w.b is null then 'removed'
                else 'changed' end as op,
            w.a,
            w.b
        from walk as w
        where w.a is distinct from w.b
            -- coalesce: a side that is missing (SQL null) makes a leaf of the other side's
            -- object or array (added or removed whole), not a null that drops the row.
            and not coalesce(jsonb_typeof(w.a) = 'object' and jsonb_typeof(w.b) = 'object',
                false)
            and not coalesce(jsonb_typeof(w.a) = 'array' and jsonb_typeof(w.b) = 'array',
                false)
        order by w.sort_key
        limit p_max_changes + 1
    )

    select
        coalesce(jsonb_agg(jsonb_build_object(
            'path', to_jsonb(l.path), 'op', l.op, 'a', l.a, 'b', l.b
        ) order by l.sort_key), '[]'::jsonb),
        count(*)
    into v_result.changes, v_count
    from leaves as l;
    v_result.truncated := v_count > p_max_changes;
    if v_result.truncated then
        v_result.changes := v_result.changes - p_max_changes;
    end if;
    return v_result;
end;
$$;

-- actae.decision_trail — what the channel knew when the event at p_cursor was recorded, in
-- one read: its lineage (the channels its history comes from, root first, each with the
-- last cursor it supplies), the event itself (null at cursor 0), the state as of that
-- cursor, and the tool results completed before that event (in clock order, own and
-- inherited, at most max_results (1..10000)).
-- Raises: AC400 bad argument, AC404 unknown channel or a cursor beyond the head.
create or replace function actae.decision_trail(
    p_channel_id text,
    p_cursor bigint,
    p_max_results integer default 1000
) returns actae.decision_trail
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_channel actae.channels := actae._channel(p_channel_id);
    v_event actae.events;
    v_state actae.state_row;
    v_result actae.decision_trail;
    v_seg record;
    v_clock bigint;
    v_depths integer [] := '{}'::integer [];
    v_clocks bigint [] := '{}'::bigint [];
    v_keys text [] := '{}'::text [];
    v_items jsonb [] := '{}'::jsonb [];
begin
    perform actae._require(p_cursor is null, 'cursor');
    perform actae._check_range(p_cursor, 'cursor', 0, 9223372036854775806);
    perform actae._require(p_max_results is null, 'max_results');
    perform actae._check_range(p_max_results, 'max_results', 1, 10000);
    if p_cursor > v_channel.head_cursor then
        perform actae._raise(
            'AC404',
            format('channel %s has no cursor %s (head is %s)', p_channel_id, p_cursor,
                v_channel.head_cursor),
            jsonb_build_object(
                'channel_id', p_channel_id, 'cursor', p_cursor,
                'head_cursor', v_channel.head_cursor
            )
        );
    end if;
    v_state := actae._state_at(v_channel, p_cursor, null);
    v_result.channel_id := v_channel.channel_id;
    v_result.cursor := p_cursor;
    v_result.state_version := v_state.version;
    v_result.state_cursor := v_state.cursor;
    v_result.state := v_state.state;
    if p_cursor > 0 then
        v_event := actae._event_at(v_channel, p_cursor);
        v_result.event := jsonb_build_object(
            'cursor', v_event.cursor, 'event_type', v_event.event_type,
            'payload', v_event.payload, 'operation_id', v_event.operation_id,
            'recorded_at', v_event.recorded_at, 'source_channel_id', v_event.channel_id
        );
    end if;
    select jsonb_agg(jsonb_build_object(
        'channel_id', s.channel_id,
        'cursor', coalesce(s.max_cursor, v_channel.head_cursor)
    ) order by s.depth)
    into v_result.lineage
    from actae._segments(v_channel) as s;

    if current_setting('citus.version', true) is not null then
        -- On Citus (a segment joined with executions is refused): the same rows read segment
        -- by segment, each by its channel (router queries), then the same order and cap.
        for v_seg in select s.* from actae._segments(v_channel) as s order by s.depth loop
            continue when v_seg.base_cursor >= p_cursor;
            v_clock := null;
            if coalesce(v_seg.max_cursor, p_cursor) >= p_cursor then
                select e.clock into v_clock from actae.events as e
                where e.channel_id = v_seg.channel_id and e.cursor = p_cursor;
            end if;
            select
                v_depths || coalesce(array_agg(v_seg.depth), '{}'::integer []),
                v_clocks || coalesce(array_agg(x.completed_clock), '{}'::bigint []),
                v_keys || coalesce(array_agg(x.key_name), '{}'::text []),
                v_items || coalesce(array_agg(jsonb_build_object(
                    'execution_id', x.execution_id, 'key_name', x.key_name,
                    'tool_name', x.tool_name, 'result', x.result, 'attempt', x.attempt,
                    'ambiguous', x.ambiguous, 'finished_at', x.finished_at,
                    'source_channel_id', x.channel_id
                )), '{}'::jsonb [])
            into v_depths, v_clocks, v_keys, v_items
            from actae.executions as x
            where x.channel_id = v_seg.channel_id
                and x.status = 'completed'
                and (
                    (v_seg.max_cursor < p_cursor and x.completed_clock <= v_seg.max_clock)
                    or x.completed_clock < v_clock
                );
        end loop;
        select coalesce(jsonb_agg(t.item order by t.depth, t.completed_clock, t.key_name), '[]')
        into v_result.tool_results
        from (
            select u.depth, u.completed_clock, u.key_name, u.item
            from unnest(v_depths, v_clocks, v_keys, v_items)
                as u (depth, completed_clock, key_name, item)
            order by u.depth, u.completed_clock, u.key_name
            limit p_max_results
        ) as t;
        return v_result;
    end if;
    -- Segments before the one holding p_cursor give everything they pass on (completed up
    -- to their clock); in that segment, what completed before the event's clock (v_event,
    -- read once: as a subquery per execution row it was probed once per row).
    v_clock := v_event.clock;
    -- The page is cut before its items are built (one JSON object per result shown, not
    -- per execution of the channel).
    select coalesce(jsonb_agg(jsonb_build_object(
        'execution_id', t.execution_id, 'key_name', t.key_name,
        'tool_name', t.tool_name, 'result', t.result, 'attempt', t.attempt,
        'ambiguous', t.ambiguous, 'finished_at', t.finished_at,
        'source_channel_id', t.channel_id
    ) order by t.depth, t.completed_clock, t.key_name), '[]')
    into v_result.tool_results
    from (
        select
            s.depth, x.completed_clock, x.key_name, x.execution_id, x.tool_name, x.result,
            x.attempt, x.ambiguous, x.finished_at, x.channel_id
        from actae._segments(v_channel) as s
        inner join actae.executions as x on x.channel_id = s.channel_id
        where s.base_cursor < p_cursor
            and x.status = 'completed'
            and (
                (s.max_cursor < p_cursor and x.completed_clock <= s.max_clock)
                or (
                    coalesce(s.max_cursor, p_cursor) >= p_cursor
                    and s.channel_id = v_event.channel_id
                    and x.completed_clock < v_clock
                )
            )
        order by s.depth, x.completed_clock, x.key_name
        limit p_max_results
    ) as t;
    return v_result;
end;
$$;

-- actae.annotate_channel — set a channel's annotations: a display name (1..256 bytes), tags
-- (at most 32, each 1..64 bytes; stored distinct and sorted) and a note (1..4096 bytes, e.g.
-- why a fork was made); null clears a field. The channel's creation metadata is untouched.
-- Guarantees: fenced by revision: the write happens only when expected_revision is the
-- current revision (0 before the first annotation) and makes it revision + 1 (outcome
-- updated). Repeating the same call after it succeeded (same content, expected_revision one
-- behind) returns the stored row (outcome replayed) and writes nothing, so a retry after a
-- dropped connection is safe. Concurrent writers with the same expected_revision: one wins,
-- the others get AC412.
-- Owner-only: another tenant's channel is AC404, as an unknown one.
-- Raises: AC400 bad argument, AC404 unknown channel, AC412 expected_revision is stale
-- (DETAIL has the current revision and annotations), 0A000 in a transaction that is not
-- READ COMMITTED (actae._not_read_committed).
create or replace function actae.annotate_channel(
    p_channel_id text,
    p_display_name text,
    p_tags text[],
    p_note text,
    p_expected_revision bigint
) returns actae.annotation_row
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_tags text [];
    v_row actae.annotations;
    v_now timestamptz;
begin
    -- The channel's purge guard (as a claim's, actae._claim_channel), shared until commit:
    -- a purge deleting the channel finishes first (then this is AC404), and no purge
    -- deletes it while this annotation is uncommitted (it would outlive its channel).
    perform pg_advisory_xact_lock_shared(actae._guard_key(1633907809, p_channel_id));
    if current_setting('transaction_isolation') <> 'read committed' then
        -- The channel is read after the guard with a fresh snapshot only in READ COMMITTED.
        perform actae._not_read_committed('annotate_channel');
    end if;
    perform actae._channel(p_channel_id);
    if not actae._owns_channel(p_channel_id) then
        -- Readable (a global operator) but not its own: annotations are the owner's.
        perform actae._no_channel(p_channel_id);
    end if;
    if p_display_name is not null then
        perform actae._check_text(p_display_name, 'display_name', 256);
    end if;
    if cardinality(p_tags) > 32 then
        perform actae._raise(
            'AC400', 'tags must hold at most 32 tags',
            jsonb_build_object('argument', 'tags', 'count', cardinality(p_tags))
        );
    end if;
    if array_ndims(p_tags) > 1 then
        perform actae._raise(
            'AC400', 'tags must be a one-dimensional array',
            jsonb_build_object('argument', 'tags', 'dimensions', array_ndims(p_tags))
        );
    end if;
    if p_tags is not null then
        -- Every element, whatever the array's lower bound ('[5:6]={a,b}').
        perform actae._check_text(t.tag, 'tags', 64) from unnest(p_tags) as t (tag);
        v_tags := array(select distinct t.tag from unnest(p_tags) as t (tag) order by t.tag);
    end if;
    if p_note is not null then
        perform actae._check_text(p_note, 'note', 4096);
    end if;
    perform actae._require(p_expected_revision is null, 'expected_revision');
    perform actae._check_range(p_expected_revision, 'expected_revision', 0,
        9223372036854775806);
    v_tags := coalesce(v_tags, '{}'::text []);

    select a.* into v_row from actae.annotations as a
    where a.channel_id = p_channel_id
    for update;
    if not found and p_expected_revision = 0 then
        insert into actae.annotations as a (
            channel_id, display_name, tags, note, revision, updated_at
        ) values (p_channel_id, p_display_name, v_tags, p_note, 1, actae._now())
        on conflict (channel_id) do nothing
        returning a.* into v_row;
        if found then
            return row(v_row.channel_id, v_row.display_name, v_row.tags, v_row.note,
                v_row.revision, v_row.updated_at, 'updated')::actae.annotation_row;
        end if;
        -- A concurrent first annotation won; decide against it.
        select a.* into v_row from actae.annotations as a
        where a.channel_id = p_channel_id
        for update;
    end if;
    if coalesce(v_row.revision, 0) = p_expected_revision then
        -- The clock read into a local first: Citus refuses a volatile function inside an
        -- UPDATE of a distributed table.
        v_now := actae._now();
        update actae.annotations as a set
            display_name = p_display_name,
            tags = v_tags,
            note = p_note,
            revision = a.revision + 1,
            updated_at = v_now
        where a.channel_id = p_channel_id
        returning a.* into v_row;
        return row(v_row.channel_id, v_row.display_name, v_row.tags, v_row.note,
            v_row.revision, v_row.updated_at, 'updated')::actae.annotation_row;
    end if;
    if v_row.revision = p_expected_revision + 1
        and v_row.display_name is not distinct from p_display_name
        and v_row.tags = v_tags
        and v_row.note is not distinct from p_note then
        return row(v_row.channel_id, v_row.display_name, v_row.tags, v_row.note,
            v_row.revision, v_row.updated_at, 'replayed')::actae.annotation_row;
    end if;
    perform actae._raise(
        'AC412',
        format('channel %s annotations are at revision %s; the caller expected %s',
            p_channel_id, coalesce(v_row.revision, 0), p_expected_revision),
        jsonb_build_object(
            'channel_id', p_channel_id, 'current_revision', coalesce(v_row.revision, 0),
            'expected_revision', p_expected_revision, 'display_name', v_row.display_name,
            'tags', v_row.tags, 'note', v_row.note
        )
    );
    return null;
end;
$$;

-- actae.follow_channel — watch_channel for readers (actae_auditor may call it): have an
-- existing channel's appends NOTIFY its topic for the next p_seconds; returns the topic.
-- Guarantees: as watch_channel (LISTEN, call this, then read after your last cursor, and no
-- append is missed), but it never creates a channel: the only thing it writes is the
-- notification registration (channels.watched_until), never the ledger.
-- A caller in a tenant follows only its tenant's channels; a caller in none (a global
-- auditor) any channel (actae._may_read). A caller that is not a global reader (an agent)
-- is under its tenant's watch cap, as with watch_channel (renewals always pass); a global
-- auditor or operator is not (docs/hardening.md).
-- Raises: AC400 bad channel_id or seconds not 1..86400, AC404 unknown channel (or one the
-- caller may not read), AC429 an agent's new registration past the watch cap.
create or replace function actae.follow_channel(
    p_channel_id text,
    p_seconds integer default 60
) returns text
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_channel actae.channels;
    v_now timestamptz;
begin
    perform actae._check_text(p_channel_id, 'channel_id', 256);
    perform actae._require(p_seconds is null, 'seconds');
    perform actae._check_range(p_seconds, 'seconds', 1);
    v_channel := actae._channel(p_channel_id);
    -- The clock read into a local first (Citus: no volatile function inside an UPDATE).
    v_now := actae._now();
    if not actae._global_reader() then
        perform actae._check_watch_cap(v_channel, v_now);
    end if;
    -- The registration as watch_channel writes it (the UPDATE takes the channel row lock
    -- every append holds), without watch_channel's owner-only check.
    update actae.channels as c set
        watched_until = greatest(c.watched_until,
            v_now + make_interval(secs => p_seconds))
    where c.channel_id = p_channel_id;
    return actae._topic(v_channel);
end;
$$;
