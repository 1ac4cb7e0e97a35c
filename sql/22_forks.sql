-- Forks (SPEC section 3): a new channel that inherits a prefix of another one.

-- actae.fork_channel — create a channel that inherits events 1..at_cursor of the source, the
-- latest snapshot at or before at_cursor, and every execution of the source (and of its
-- ancestors) completed before event at_cursor + 1 was recorded.
-- Guarantees:
--   * Constant cost in the prefix length: nothing is copied. The fork stores its lineage
--     (ancestor, last inherited cursor, last inherited clock) and reads resolve through it.
--   * Exact cut: completions read the channel clock holding its clock guard shared, appends
--     and forks bump it holding the guard exclusively (actae._lock_channel), so "completed
--     before event at_cursor + 1" (or, at the head, "before this fork") is decided by
--     comparing clocks, never wall time. Nothing
--     recorded in the source afterwards is visible in the fork, and the other way round.
--   * tool_policies maps tool_name to replay (default), live or block; a fork of a fork
--     inherits its parent's policies unless it passes its own. Exactly that shape
--     (actae._tool_policies_valid, the rule of the column too): a JSON object whose every
--     key is a tool name (1 to _limit('tool_name') bytes) and every value one of the
--     strings "replay", "live", "block" (an array such as ["block"] is refused, never
--     read as a policy), with at most _limit('tool_policies') entries.
--   * Idempotent: operation_id (in the source's namespace) or an existing new_channel_id
--     forked identically replays the receipt (outcome replayed).
--   * The operation_id namespace of a channel shared by every tenant (tenant actae_agent, a
--     channel written before tenants existed) is shared too (SPEC 3a): an operation_id that
--     a fork the caller cannot read took there (another tenant's, or one since deleted) is
--     AC409, with the same message and DETAIL (source channel and operation_id only)
--     whether the request is the same or not; that fork's id, tenant and request are never
--     named.
--   * The receipt's prefix_sha256 is the hash chain value at at_cursor ('' at cursor 0).
--   * Tenants: the source must be a channel of the caller's tenant, the new channel belongs
--     to the caller's tenant; a new_channel_id that another tenant's channel holds is
--     AC404, as an unknown source is.
--   * Depth: a fork's lineage holds at most _limit('fork_depth') (100) channels, so a chain
--     of forks costs bounded bytes per row and bounded reads.
-- Raises: AC400 bad argument (tool_policies of another shape; an operation_id beginning
-- with 'actae.', reserved: actae._check_operation_id), or a fork that would be more than
-- _limit('fork_depth') deep (naming source_channel_id), AC404 unknown source (or another
-- tenant's), at_cursor beyond its head, or new_channel_id held by another tenant, AC409
-- operation_id or new_channel_id reused for a different fork, or operation_id taken by a
-- fork the caller cannot read.
create or replace function actae.fork_channel(
    p_source_channel_id text,
    p_at_cursor bigint,
    p_new_channel_id text default null,
    p_operation_id text default null,
    p_tool_policies jsonb default null
) returns actae.fork_result
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_source actae.channels;
    v_fork actae.channels;
    v_op actae.operations;
    v_content text;
    v_new_id text;
    v_policies jsonb;
    v_ids text[] := '{}'::text[];
    v_cursors bigint[] := '{}'::bigint[];
    v_clocks bigint[] := '{}'::bigint[];
    v_cut boolean := false;
    v_next_clock bigint;
    v_state actae.state_row;
    v_chain text;
    v_outcome text;
    v_gone boolean := false;
begin
    perform actae._check_text(p_source_channel_id, 'source_channel_id');
    perform actae._require(p_at_cursor is null, 'at_cursor');
    perform actae._check_range(p_at_cursor, 'at_cursor', 0);
    if p_new_channel_id is not null then
        perform actae._check_text(p_new_channel_id, 'new_channel_id');
    end if;
    if p_operation_id is not null then
        perform actae._check_operation_id(p_operation_id);
    end if;
    if p_tool_policies is not null and not actae._tool_policies_valid(p_tool_policies) then
        if jsonb_typeof(p_tool_policies) = 'object'
            and exists (
                select from jsonb_object_keys(p_tool_policies) as k (tool_name)
                where octet_length(k.tool_name) not between 1 and actae._limit('tool_name')
            ) then
            perform actae._raise(
                'AC400',
                format('every tool name in tool_policies must be 1 to %s bytes',
                    actae._limit('tool_name')),
                jsonb_build_object('argument', 'tool_policies',
                    'max_bytes', actae._limit('tool_name'))
            );
        end if;
        perform actae._raise(
            'AC400',
            'tool_policies must be a JSON object mapping tool names to replay, live or block',
            jsonb_build_object('argument', 'tool_policies', 'type', jsonb_typeof(p_tool_policies))
        );
    end if;
    if (select count(*) from jsonb_object_keys(p_tool_policies)) > actae._limit('tool_policies')
        then
        perform actae._raise(
            'AC400',
            format('tool_policies must have at most %s entries', actae._limit('tool_policies')),
            jsonb_build_object(
                'argument', 'tool_policies', 'max_entries', actae._limit('tool_policies'),
                'entries', (select count(*) from jsonb_object_keys(p_tool_policies))
            )
        );
    end if;

    v_source := actae._lock_channel(p_source_channel_id, false);
    v_policies := coalesce(p_tool_policies, v_source.tool_policies);
    if p_operation_id is not null then
        v_content := encode(sha256(convert_to(jsonb_build_array(
            p_source_channel_id, p_at_cursor, p_new_channel_id, p_tool_policies
        )::text, 'UTF8')), 'hex');
        -- The operation recorded under this id, compared with nothing yet (kind and content
        -- null: actae._find_operation raises only on a known difference), so that a fork the
        -- caller cannot read is refused before anything of its request is compared or named.
        v_op := actae._find_operation(v_source, p_operation_id, null, null);
        if v_op.operation_id is not null then
            if v_op.kind = 'fork_channel' then
                -- Another tenant's fork (the source is shared: a channel of actae_agent), or
                -- one since deleted (its id perhaps taken again by another channel): nothing
                -- of its request is compared, so every request gets the same answer.
                select c.* into v_fork from actae.channels as c
                where c.channel_id = v_op.target_channel_id;
                v_gone := not found or not actae._may_read(v_fork.tenant)
                    or v_fork.parent_channel_id is distinct from p_source_channel_id;
            end if;
            if not v_gone then
                -- AC409 when it was another kind of operation or another fork.
                perform actae._find_operation(v_source, p_operation_id, 'fork_channel',
                    v_content);
                -- The same request: a replay while its channel is still the fork it made.
                v_gone := v_fork.fork_cursor is distinct from p_at_cursor
                    or v_fork.tool_policies is distinct from v_policies;
            end if;
            if v_gone then
                perform actae._raise(
                    'AC409',
                    format('operation_id %s in channel %s was already used by a fork this '
                        'caller cannot read', p_operation_id, p_source_channel_id),
                    jsonb_build_object(
                        'channel_id', p_source_channel_id, 'operation_id', p_operation_id
                    )
                );
            end if;
            return actae._fork_receipt(v_fork, 'replayed');
        end if;
    end if;
    if p_at_cursor > v_source.head_cursor then
        perform actae._raise(
            'AC404',
            format('channel %s has no cursor %s (head is %s)', p_source_channel_id,
                p_at_cursor, v_source.head_cursor),
            jsonb_build_object(
                'channel_id', p_source_channel_id, 'at_cursor', p_at_cursor,
                'head_cursor', v_source.head_cursor
            )
        );
    end if;

    v_new_id := coalesce(p_new_channel_id, 'fork-' || gen_random_uuid());
    -- The new channel's clock guard (actae._lock_channel's), so concurrent creators of the
    -- same id (another fork, an append that creates it) take turns: the later one sees the
    -- channel below (a replay, or AC409) instead of failing on its primary key (23505).
    -- Writers that create a channel without the guard (a claim of a new key, start_run, the
    -- LangGraph saver) are met by the insert's ON CONFLICT, which waits for them: the
    -- channel they made is then answered as an existing one.
    perform pg_advisory_xact_lock(actae._guard_key(1633907811, v_new_id));
    select c.* into v_fork from actae.channels as c where c.channel_id = v_new_id for update;
    if not found then
        -- Lineage: the source's ancestors that end before the cut, the one the cut falls in
        -- (trimmed to at_cursor), and the source itself when the cut is in its own events.
        for i in 1 .. coalesce(array_length(v_source.lineage_ids, 1), 0) loop
            v_ids := array_append(v_ids, v_source.lineage_ids[i]);
            if v_source.lineage_cursors[i] > p_at_cursor then
                select e.clock - 1 into v_next_clock from actae.events as e
                where e.channel_id = v_source.lineage_ids[i] and e.cursor = p_at_cursor + 1;
                v_cursors := array_append(v_cursors, p_at_cursor);
                v_clocks := array_append(v_clocks, v_next_clock);
                v_cut := true;
                exit;
            end if;
            v_cursors := array_append(v_cursors, v_source.lineage_cursors[i]);
            v_clocks := array_append(v_clocks, v_source.lineage_clocks[i]);
        end loop;
        if not v_cut then
            v_next_clock := null;
            if p_at_cursor < v_source.head_cursor then
                select e.clock - 1 into v_next_clock from actae.events as e
                where e.channel_id = p_source_channel_id and e.cursor = p_at_cursor + 1;
            end if;
            v_ids := array_append(v_ids, p_source_channel_id);
            v_cursors := array_append(v_cursors, p_at_cursor);
            v_clocks := array_append(v_clocks, coalesce(v_next_clock, v_source.clock));
        end if;

        -- Depth cap (issue 14, F9): a fork stores its whole lineage and every read walks it,
        -- so a chain of forks must not grow without bound (rows quadratic, reads linear in it).
        if cardinality(v_ids) > actae._limit('fork_depth') then
            perform actae._raise(
                'AC400',
                format('source_channel_id %s forked at cursor %s would give a fork %s levels deep, '
                    'past the limit of %s (fork an ancestor, or at a cursor it inherits)',
                    p_source_channel_id, p_at_cursor, cardinality(v_ids),
                    actae._limit('fork_depth')),
                jsonb_build_object(
                    'argument', 'source_channel_id', 'max_depth', actae._limit('fork_depth'),
                    'depth', cardinality(v_ids), 'at_cursor', p_at_cursor
                )
            );
        end if;
        v_state := actae._state_at(v_source, p_at_cursor, null);
        if p_at_cursor = v_source.head_cursor then
            v_chain := v_source.head_chain;
        elsif p_at_cursor = 0 then
            v_chain := '';
        else
            v_chain := (actae._event_at(v_source, p_at_cursor)).chain_sha256;
        end if;

        insert into actae.channels (
            channel_id, head_cursor, head_chain, state_version, parent_channel_id, fork_cursor,
            fork_prefix_sha256, lineage_ids, lineage_cursors, lineage_clocks, tool_policies,
            tenant
        ) values (
            v_new_id, p_at_cursor, v_chain, v_state.version, p_source_channel_id, p_at_cursor,
            v_chain, v_ids, v_cursors, v_clocks, v_policies, actae._new_channel_tenant(v_new_id)
        )
        on conflict (channel_id) do nothing
        returning * into v_fork;
        if found then
            -- Completions in the source from now on get a later clock than the fork
            -- inherits.
            update actae.channels as c set clock = c.clock + 1
            where c.channel_id = p_source_channel_id;
            v_outcome := 'forked';
        else
            select c.* into v_fork from actae.channels as c
            where c.channel_id = v_new_id for update;
        end if;
    end if;
    if v_outcome is null then
        -- The id is taken: this very fork again (a replay), else AC409.
        if not actae._owns(v_fork.tenant) then
            -- Another tenant's id: refused as an unknown channel is (no existence leak
            -- beyond the refusal itself).
            perform actae._no_channel(v_new_id);
        end if;
        if v_fork.parent_channel_id is distinct from p_source_channel_id
            or v_fork.fork_cursor is distinct from p_at_cursor
            or v_fork.tool_policies is distinct from v_policies then
            perform actae._raise(
                'AC409',
                format('channel %s already exists and is not this fork', v_new_id),
                jsonb_build_object(
                    'new_channel_id', v_new_id, 'parent_channel_id', v_fork.parent_channel_id,
                    'fork_cursor', v_fork.fork_cursor
                )
            );
        end if;
        v_outcome := 'replayed';
    end if;
    -- Recorded on a replay by new id too: the operation_id then names this fork, so every
    -- later use of it answers the same (one namespace per channel, SPEC 3a).
    if p_operation_id is not null then
        insert into actae.operations (
            channel_id, operation_id, kind, content_sha256, target_channel_id, recorded_at
        ) values (
            p_source_channel_id, p_operation_id, 'fork_channel', v_content, v_new_id,
            actae._now()
        );
    end if;
    return actae._fork_receipt(v_fork, v_outcome);
end;
$$;

-- actae._fork_receipt — the receipt of a fork channel.
create or replace function actae._fork_receipt(
    p_fork actae.channels,
    p_outcome text
) returns actae.fork_result
language plpgsql
stable
as $$
begin
    return row(
        p_fork.channel_id, p_fork.parent_channel_id, p_fork.fork_cursor,
        (actae._state_at(p_fork, p_fork.fork_cursor, null)).version,
        p_fork.fork_prefix_sha256, p_fork.tool_policies, p_outcome
    )::actae.fork_result;
end;
$$;
