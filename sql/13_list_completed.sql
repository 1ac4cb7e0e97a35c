-- actae.list_completed — every completed execution a channel sees, as claims in it would
-- see them: its own completed rows, and in a fork the completed rows it inherits (for each
-- key the nearest ancestor's row completed before the fork's cut, unless the channel has a
-- row of its own for that key or its tool policy for the row's tool is live). A resumed
-- agent reads its whole prefix with it instead of one claim per step.
-- Guarantees: ordered by key_name, keys after p_after_key_name only (null: from the first),
-- at most p_max_rows rows (1..100000): page by passing the last key_name back; each row is
-- what actae.get_execution(channel_id, key_name) returns (no claim token, outcome null); an
-- unknown channel, or one the caller may not read (actae._may_read), has no rows.
-- Raises: AC400 bad argument.
create or replace function actae.list_completed(
    p_channel_id text,
    p_after_key_name text default null,
    p_max_rows integer default 1000
) returns setof actae.execution_row
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_channel actae.channels;
begin
    -- Inline checks (a resumed run reads its prefix with this on every claim); the helpers
    -- run, in the same order, only when one fails.
    if (octet_length(p_channel_id) between 1 and actae._limit('channel_id')
        and coalesce(octet_length(p_after_key_name) between 1 and actae._limit('key_name'), true)
        and p_max_rows between 1 and actae._limit('max_rows')) is not true then
        perform actae._check_text(p_channel_id, 'channel_id');
        if p_after_key_name is not null then
            perform actae._check_text(p_after_key_name, 'after_key_name',
                actae._limit('key_name')::integer);
        end if;
        perform actae._require(p_max_rows is null, 'max_rows');
        perform actae._check_range(p_max_rows, 'max_rows', 1);
    end if;
    select c.* into v_channel from actae.channels as c where c.channel_id = p_channel_id;
    if found and not actae._may_read(v_channel.tenant) then
        return;
    end if;
    if v_channel.parent_channel_id is null then
        return query
        select r.*
        from actae.executions as e
        -- row(e.*), not e: on Citus this statement runs on the channel's shard, where e
        -- is the shard's row type, which _execution_row does not take.
        cross join lateral actae._execution_row(row(e.*)::actae.executions, null, false) as r
        where e.channel_id = p_channel_id and e.status = 'completed'
            and (p_after_key_name is null or e.key_name > p_after_key_name)
        order by e.key_name
        limit p_max_rows;
        return;
    end if;
    return query
    with own as (
        select e.*
        from actae.executions as e
        where e.channel_id = p_channel_id
            and (p_after_key_name is null or e.key_name > p_after_key_name)
    ),

    -- For each key the nearest ancestor's completed row, as a claim picks it; then, as a
    -- claim of that row's tool decides, none when the fork runs that tool live (a farther
    -- ancestor's row of another tool is not what a claim would replay).
    nearest as (
        select distinct on (e.key_name) e.*
        from unnest(v_channel.lineage_ids, v_channel.lineage_clocks)
            with ordinality as s (channel_id, clock, depth)
        inner join actae.executions as e on e.channel_id = s.channel_id
        where e.status = 'completed' and e.completed_clock <= s.clock
            and (p_after_key_name is null or e.key_name > p_after_key_name)
        order by e.key_name, s.depth desc
    ),

    inherited as (
        select n.* from nearest as n
        where coalesce(v_channel.tool_policies ->> n.tool_name, 'replay') <> 'live'
    ),

    seen as (
        select o.* from own as o where o.status = 'completed'
        union all
        select i.* from inherited as i
        where not exists (select from own as o where o.key_name = i.key_name)
    )

    select r.*
    from seen as e
    cross join lateral actae._execution_row(e::actae.executions, null, false) as r
    order by e.key_name
    limit p_max_rows;
end;
$$;
