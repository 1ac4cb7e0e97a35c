-- Reads of the tool-execution ledger. None of them returns a claim_token.

-- actae.get_execution(execution_id) — one execution by id, for a caller who may read it
-- (actae._may_read).
-- Raises: AC400 null id, AC404 unknown execution (or one the caller may not read).
create or replace function actae.get_execution(
    p_execution_id uuid
) returns actae.execution_row
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_row actae.executions;
begin
    perform actae._require(p_execution_id is null, 'execution_id');
    select e.* into v_row from actae.executions as e where e.execution_id = p_execution_id;
    if not found or not actae._may_read(v_row.tenant) then
        perform actae._raise(
            'AC404', format('execution %s does not exist', p_execution_id),
            jsonb_build_object('execution_id', p_execution_id)
        );
    end if;
    return actae._execution_row(v_row, null, false);
end;
$$;

-- actae.get_execution(channel_id, key_name) — the execution a claim of this key in this
-- channel would see: the channel's own row, or in a fork the completed row it inherits
-- (unless the fork's policy for that tool is live: then a claim would run it afresh).
-- A channel the caller may not read (actae._may_read) has no executions for it.
-- Raises: AC400 bad argument, AC404 no such execution.
create or replace function actae.get_execution(
    p_channel_id text,
    p_key_name text
) returns actae.execution_row
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_row actae.executions;
    v_channel actae.channels;
begin
    perform actae._check_text(p_channel_id, 'channel_id');
    perform actae._check_text(p_key_name, 'key_name');
    select e.* into v_row
    from actae.executions as e
    where e.channel_id = p_channel_id and e.key_name = p_key_name;
    if found and not actae._may_read(v_row.tenant) then
        v_row := null;
    elsif not found then
        select c.* into v_channel from actae.channels as c where c.channel_id = p_channel_id;
        if found and actae._may_read(v_channel.tenant) then
            v_row := actae._inherited_execution(v_channel, p_key_name);
            if coalesce(v_channel.tool_policies ->> v_row.tool_name, 'replay') = 'live' then
                v_row := null;
            end if;
        end if;
    end if;
    if v_row.execution_id is null then
        perform actae._raise(
            'AC404',
            format('no execution with key %s in channel %s', p_key_name, p_channel_id),
            jsonb_build_object('channel_id', p_channel_id, 'key_name', p_key_name)
        );
    end if;
    return actae._execution_row(v_row, null, false);
end;
$$;

-- actae.list_executions — executions filtered by channel (its own rows, not inherited
-- ones), lifecycle status and lapsed lease, oldest first, at most max_rows (1..100000).
-- lease_expired = true keeps claimed/in_progress rows whose lease has lapsed. A caller in a
-- tenant sees its tenants' executions only; a caller in none (global auditor) all.
-- Raises: AC400 bad argument.
create or replace function actae.list_executions(
    p_channel_id text default null,
    p_status text default null,
    p_lease_expired boolean default false,
    p_max_rows integer default 100
) returns setof actae.execution_row
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_row actae.executions;
    v_now timestamptz := actae._now();
    v_roles oid [] := actae._readable();
begin
    if p_channel_id is not null then
        perform actae._check_text(p_channel_id, 'channel_id');
    end if;
    if p_status not in ('claimed', 'in_progress', 'completed', 'failed', 'cancelled') then
        perform actae._raise(
            'AC400', 'status must be claimed, in_progress, completed, failed or cancelled',
            jsonb_build_object('argument', 'status', 'status', p_status)
        );
    end if;
    perform actae._require(p_max_rows is null, 'max_rows');
    perform actae._check_range(p_max_rows, 'max_rows', 1);
    if p_channel_id is null then
        -- All channels: a statement (so a cached plan) of its own. Sharing one with the
        -- one-channel listing let its generic plan, a scan of every channel, serve later
        -- one-channel calls in the session. Rows are converted here, not in the query, and
        -- the clock is read once (a distributed query may not call either; docs/SCALING.md).
        for v_row in
            select e.*
            from actae.executions as e
            where (p_status is null or e.status = p_status)
                and (v_roles is null or e.tenant = any(v_roles))
                and (not coalesce(p_lease_expired, false) or (
                    actae._in_flight(e.status) and e.lease_expires_at <= v_now
                ))
            order by e.created_at, e.execution_id
            limit p_max_rows
        loop
            return next actae._execution_row(v_row, null, false);
        end loop;
        return;
    end if;
    for v_row in
        select e.*
        from actae.executions as e
        where e.channel_id = p_channel_id
            and (p_status is null or e.status = p_status)
            and (v_roles is null or e.tenant = any(v_roles))
            and (not coalesce(p_lease_expired, false) or (
                actae._in_flight(e.status) and e.lease_expires_at <= v_now
            ))
        order by e.created_at, e.execution_id
        limit p_max_rows
    loop
        return next actae._execution_row(v_row, null, false);
    end loop;
end;
$$;

-- actae.list_expired_leases — claimed/in_progress executions whose lease has lapsed, the
-- candidates for reclaim, oldest lease first; a caller in a tenant sees its tenants' only.
create or replace function actae.list_expired_leases(
    p_max_rows integer default 100
) returns setof actae.execution_row
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_row actae.executions;
    v_now timestamptz := actae._now();
    v_roles oid [] := actae._readable();
begin
    perform actae._require(p_max_rows is null, 'max_rows');
    perform actae._check_range(p_max_rows, 'max_rows', 1);
    for v_row in
        select e.* from actae.executions as e
        where actae._in_flight(e.status) and e.lease_expires_at <= v_now
            and (v_roles is null or e.tenant = any(v_roles))
        order by e.lease_expires_at
        limit p_max_rows
    loop
        return next actae._execution_row(v_row, null, false);
    end loop;
end;
$$;
