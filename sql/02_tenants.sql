-- Tenants (docs/tenants.md): a tenant is a role granted actae_agent directly (actae_operator
-- excepted), LOGIN or NOLOGIN; a login belongs to every tenant it is a member of through
-- any chain of grants, or is its own tenant when it is granted actae_agent directly or is a
-- superuser. Every channel records its tenant; agent-facing functions act only on channels
-- whose tenant session_user is a member of (SECURITY DEFINER runs as actae_owner, so
-- current_user is never the caller). Tenants are stored as role oids; actae.tenant_names
-- keeps their names, so a restore into another cluster moves them back onto their roles
-- (actae._reconcile_tenant_names).

-- actae._caller_tenants — the tenants session_user belongs to: itself when it is a superuser
-- or granted actae_agent directly; else every role it is a member of through any chain of
-- grants (login -> group -> tenant, or a tenant that is itself a LOGIN role) that is
-- granted actae_agent directly (actae_operator is not a tenant). Empty: a caller in no
-- tenant (a global auditor or operator, when it holds no agent rights but an operator's:
-- actae._may_read).
-- Null: session_user has no pg_roles row.
-- PL/pgSQL on purpose, as actae._member_of: its catalog queries are planned once per
-- session. A LANGUAGE sql body with a FROM clause is not inlined and was planned again on
-- every call (about 400 us of backend CPU per channel creation).
create or replace function actae._caller_tenants() returns oid[]
language plpgsql
stable
as $$
declare
    v_role oid;
    v_super boolean;
begin
    select r.oid, r.rolsuper into v_role, v_super
    from pg_catalog.pg_roles as r
    where r.rolname = session_user;
    if not found then
        return null;
    end if;
    if v_super or exists (
        select from pg_catalog.pg_auth_members as m
        where m.member = v_role and m.roleid = 'actae_agent'::regrole
    ) then
        return array[v_role];
    end if;
    return array(
        with recursive m (role_oid) as (
            select v_role
            union
            select a.roleid from pg_catalog.pg_auth_members as a
            inner join m on a.member = m.role_oid
        )
        select m.role_oid
        from m
        where m.role_oid <> 'actae_operator'::regrole
            and exists (
                select from pg_catalog.pg_auth_members as a
                where a.member = m.role_oid and a.roleid = 'actae_agent'::regrole
            )
        order by m.role_oid
    );
end;
$$;

-- actae._caller_tenant — the tenant a channel created by session_user belongs to: its one
-- tenant, or session_user itself when it belongs to none (a global operator's own channels).
-- Raises: AC400 when the login belongs to several tenants (which one would own the channel
-- is not for Actae to guess: grant the login one tenant role).
create or replace function actae._caller_tenant() returns oid
language plpgsql
stable
as $$
declare
    v_tenants oid [] := actae._caller_tenants();
begin
    if cardinality(v_tenants) > 1 then
        perform actae._raise(
            'AC400',
            format('login %s belongs to several tenants; a login that creates channels must '
                'belong to exactly one', session_user),
            jsonb_build_object(
                'login', session_user,
                'tenants', array(select t::regrole::text from unnest(v_tenants) as t)
            )
        );
    end if;
    return coalesce(v_tenants[1], quote_ident(session_user)::regrole::oid);
end;
$$;

-- actae._owns — true when session_user is a member of tenant p_tenant (superusers are
-- members of every role). pg_has_role's membership cache makes this about a microsecond.
create or replace function actae._owns(
    p_tenant oid
) returns boolean
language sql
stable
as $$
    select pg_catalog.pg_has_role(session_user, p_tenant, 'MEMBER');
$$;

-- actae._global_reader — true when session_user reads every tenant's channels (a global
-- auditor or operator): it belongs to no tenant (actae._caller_tenants is empty) and is no
-- member of actae_agent except through actae_operator. Fails closed: a caller with agent
-- rights whose tenancy does not resolve, or whose role is not found (null tenants), is not.
create or replace function actae._global_reader() returns boolean
language sql
stable
as $$
    select coalesce(cardinality(actae._caller_tenants()) = 0, false)
        and (
            not pg_catalog.pg_has_role(session_user, 'actae_agent', 'MEMBER')
            or pg_catalog.pg_has_role(session_user, 'actae_operator', 'MEMBER')
        );
$$;

-- actae._may_read — true when session_user may read a channel of tenant p_tenant: it is a
-- member of that tenant, or a global reader (actae._global_reader).
create or replace function actae._may_read(
    p_tenant oid
) returns boolean
language sql
stable
as $$
    select pg_catalog.pg_has_role(session_user, p_tenant, 'MEMBER') or actae._global_reader();
$$;

-- actae._channel_tenant — the tenant of channel p_channel_id; null when there is no such
-- channel. PL/pgSQL: the channel is read in a statement of its own (a router query on
-- Citus), and the membership tests below run here, where session_user is the caller.
create or replace function actae._channel_tenant(
    p_channel_id text
) returns oid
language plpgsql
stable
as $$
declare
    v_tenant oid;
begin
    select c.tenant into v_tenant from actae.channels as c
    where c.channel_id = p_channel_id;
    return v_tenant;
end;
$$;

-- actae._owns_channel — true when channel p_channel_id exists and session_user is a member
-- of its tenant. PL/pgSQL: a LANGUAGE sql body with a FROM clause is planned on every call.
create or replace function actae._owns_channel(
    p_channel_id text
) returns boolean
language plpgsql
stable
as $$
declare
    v_tenant oid := actae._channel_tenant(p_channel_id);
begin
    return v_tenant is not null and actae._owns(v_tenant);
end;
$$;

-- actae._member_of — every role session_user is a member of (itself included, through any
-- chain of grants), or null for a superuser (a member of every role): actae._owns for a
-- whole listing at once. A listing filters with (v_roles is null or x.tenant =
-- any(v_roles)), a comparison with a constant that Citus evaluates on the shards, where a
-- call of actae._owns would run as the node-to-node role instead of the caller. PL/pgSQL, as
-- actae._caller_tenants, so its queries are planned once per session.
create or replace function actae._member_of() returns oid[]
language plpgsql
stable
as $$
begin
    if (select r.rolsuper from pg_catalog.pg_roles as r where r.rolname = session_user) then
        return null;
    end if;
    return array(
        with recursive m (role_oid) as (
            select r.oid from pg_catalog.pg_roles as r where r.rolname = session_user
            union
            select a.roleid from pg_catalog.pg_auth_members as a
            inner join m on a.member = m.role_oid
        )
        select m.role_oid from m
    );
end;
$$;

-- actae._readable — actae._member_of for reads (actae._may_read): null, every channel, also
-- for a global reader (actae._global_reader); else every role session_user is a member of.
create or replace function actae._readable() returns oid[]
language sql
stable
as $$
    select case when actae._global_reader() then null else actae._member_of() end;
$$;

-- actae._may_read_channel — true when channel p_channel_id exists and session_user may read
-- it (actae._may_read).
create or replace function actae._may_read_channel(
    p_channel_id text
) returns boolean
language plpgsql
stable
as $$
declare
    v_tenant oid := actae._channel_tenant(p_channel_id);
begin
    return v_tenant is not null and actae._may_read(v_tenant);
end;
$$;

-- actae._no_channel — raise the AC404 of an unknown channel. Used as well for a channel of
-- another tenant, so the answer leaks nothing about its existence.
create or replace function actae._no_channel(
    p_channel_id text
) returns void
language plpgsql
immutable
as $$
begin
    perform actae._raise(
        'AC404', format('channel %s does not exist', p_channel_id),
        jsonb_build_object('channel_id', p_channel_id)
    );
end;
$$;

-- actae._tenant_role — the role oid of tenant p_tenant (a role name, not quoted), or null
-- when that role is no tenant. A tenant is a role granted actae_agent directly (a NOLOGIN
-- tenant role, or a login that is its own tenant), other than actae_operator; a login that
-- belongs to a tenant is a member of actae_agent only through it, so it is no tenant.
create or replace function actae._tenant_role(
    p_tenant text
) returns oid
language sql
stable
as $$
    select r.oid
    from pg_catalog.pg_roles as r
    inner join pg_catalog.pg_auth_members as m
        on m.member = r.oid and m.roleid = 'actae_agent'::regrole
    where r.rolname = p_tenant and r.rolname <> 'actae_operator';
$$;

-- actae.assign_tenant — move a channel and its executions to tenant p_tenant (operator
-- only): e.g. the channels written before tenants existed, which belong to actae_agent
-- (shared by every agent) until assigned.
-- Guarantees: the channel's purge guard is held exclusively and its row locked while its
-- rows move, so a claim of a new key (which reads the channel's tenant behind the guard,
-- held shared: actae._claim_channel) either commits before and has its execution moved
-- too, or reads the channel after this commits; the tenant's name is recorded
-- (actae._remember_tenant); returns the channel.
-- Raises: AC400 bad channel_id, or p_tenant is not a role granted actae_agent directly;
-- AC404 unknown channel.
create or replace function actae.assign_tenant(
    p_channel_id text,
    p_tenant text
) returns actae.channel_row
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_tenant oid;
    v_channel actae.channels;
begin
    perform actae._check_text(p_channel_id, 'channel_id');
    perform actae._require(p_tenant is null, 'tenant');
    perform actae._check_text(p_tenant, 'tenant', 63);  -- a role name: at most 63 bytes
    v_tenant := actae._tenant_role(p_tenant);
    if v_tenant is null then
        perform actae._raise(
            'AC400', format('tenant %s is not a role granted actae_agent', p_tenant),
            jsonb_build_object('argument', 'tenant', 'tenant', p_tenant)
        );
    end if;
    perform pg_advisory_xact_lock(actae._guard_key(1633907809, p_channel_id));
    perform actae._remember_tenant(v_tenant);
    update actae.channels as c set tenant = v_tenant
    where c.channel_id = p_channel_id
    returning c.* into v_channel;
    if not found then
        perform actae._no_channel(p_channel_id);
    end if;
    update actae.executions as e set tenant = v_tenant where e.channel_id = p_channel_id;
    return actae._channel_row(v_channel);
end;
$$;

-- actae._remember_tenant — record the name of role p_tenant in actae.tenant_names (migration
-- 0025), with the cluster it names it in, before its oid is stored as a tenant (a new
-- channel's, assign_tenant's, a quota's), so that a restore into another cluster can find
-- the role again by name (actae._reconcile_tenant_names).
-- Guarantees: a tenant recorded under its current name costs a catalog cache lookup and one
-- primary-key probe, and writes nothing; otherwise this cluster's row for it is written
-- once (a new tenant; a renamed one, whose row gets the new name; one whose oid a restored
-- backup recorded for another role, so the next migrate sees this database's tenant beside
-- the backup's and refuses). Concurrent first uses of one tenant: one row, the other waits
-- for it (a REPEATABLE READ or SERIALIZABLE one may then fail with 40001, to be retried).
-- An oid that names no role is not recorded.
create or replace function actae._remember_tenant(
    p_tenant oid
) returns void
language plpgsql
volatile
as $$
declare
    v_name text := pg_catalog.pg_get_userbyid(p_tenant);
begin
    perform from actae.tenant_names as t where t.tenant = p_tenant and t.name = v_name;
    if found or v_name = format('unknown (OID=%s)', p_tenant) then
        return;
    end if;
    insert into actae.tenant_names as t (tenant, name, cluster)
    select p_tenant, v_name, s.system_identifier from pg_catalog.pg_control_system() as s
    on conflict (tenant, cluster) do update set name = excluded.name
    where t.name <> excluded.name;
end;
$$;

-- actae._reconcile_tenant_names — make the tenant oids stored in channels, executions and
-- quotas name the roles actae.tenant_names recorded them for. Called by every `actae
-- migrate` (sql/95_tenant_names.sql), as a superuser.
-- Guarantees:
--   * a row recorded in this cluster (its system identifier): the oid is right; a renamed
--     role's recorded name is refreshed. Nothing else happens while every row is.
--   * rows recorded in another cluster (a logical restore, or pg_upgrade): a row whose oid
--     names a role of its recorded name here stays (pg_upgrade keeps oids); a row under
--     which nothing is stored (no channel, no quota: a tenant dropped in the source) is
--     forgotten; a row whose name is '' (a tenant dropped on purpose, set so by hand) takes
--     what is stored under it to 0; every other row moves to the role of its name here,
--     with the channels, executions and quotas stored under it, in one statement per table
--     over the whole mapping (two tenants whose oids swapped, or a chain, end right). A
--     stored tenant oid that no row accounts for (a row inserted by hand, a tenant dropped
--     before it was recorded) may name anyone here: it becomes 0 too. 0 is a role no login
--     is a member of (superusers and global readers still see its channels; `actae tenant
--     assign` gives one a tenant); its quotas are deleted. A WARNING (printed by actae
--     migrate) lists what moved. Then every row is of this cluster.
--   * written_by (the writing login, an audit record) is not rewritten: after a restore into
--     another cluster it may name no role, or another one.
--   * every statement reads or writes one Actae table with constants (no join of an Actae
--     table with the catalogs, no UPDATE ... FROM), so it runs on Citus as well, where these
--     are distributed or reference tables (sql/citus/distribute.sql).
-- Raises: 55000, changing nothing (the migrate fails), naming every recorded tenant with
-- something stored under it that has no role of its name here (restore the roles first),
-- every role two recorded tenants would both move to (a role renamed, or dropped and
-- created again, in the source since its last migrate: set the other row's name right),
-- every oid recorded for two roles (here and by another cluster, or by two other
-- clusters: a restore backed up again before its migrate), a tenant recorded here after
-- channels stored under its oid were made (they came with the backup), and, when a
-- row moves to another role, this cluster's tenants with channels or quotas (a restore into
-- a database with tenants of its own, or a channel made between the restore and this
-- migrate: which rows under an oid are whose cannot be told, and the restore's own copy of
-- a table keyed by tenant may have failed).
create or replace function actae._reconcile_tenant_names() returns void
language plpgsql
volatile
as $$
declare
    v_here bigint := (select s.system_identifier from pg_catalog.pg_control_system() as s);
    v_row record;
    v_role oid;
    v_name text;
    v_stored oid [];
    v_local oid [] := '{}'::oid [];
    v_keep oid [] := '{}'::oid [];
    v_gone oid [] := '{}'::oid [];
    v_from oid [] := '{}'::oid [];
    v_to oid [] := '{}'::oid [];
    v_names text [] := '{}'::text [];
    v_missing text [] := '{}'::text [];
    v_shared text [] := '{}'::text [];
    v_mixed text [];
    v_clash text [];
    v_orphans bigint;
    v_quotas actae.quotas [];
begin
    for v_row in select t.tenant, t.name from actae.tenant_names as t where t.cluster = v_here
    loop
        select r.rolname::text into v_name from pg_catalog.pg_roles as r
        where r.oid = v_row.tenant;
        if found and v_name <> v_row.name then
            update actae.tenant_names as t set name = v_name
            where t.tenant = v_row.tenant and t.cluster = v_here;
        end if;
        v_local := v_local || v_row.tenant;
    end loop;
    if not exists (select from actae.tenant_names as t where t.cluster <> v_here) then
        return;
    end if;
    v_stored := array(select distinct c.tenant from actae.channels as c)
        || array(select q.tenant from actae.quotas as q);
    for v_row in select t.tenant, t.name from actae.tenant_names as t
        where t.cluster <> v_here order by t.name, t.tenant
    loop
        select r.rolname::text into v_name from pg_catalog.pg_roles as r
        where r.oid = v_row.tenant;
        if v_row.tenant = any(v_local) and v_name is distinct from v_row.name then
            -- Recorded here for one role and by the other cluster for another: the rows
            -- stored under it are some of each one's, and nothing tells which.
            v_shared := v_shared || format('%s (%s here, %s in the other cluster)',
                v_row.tenant, coalesce(v_name, '?'), v_row.name);
        elsif exists (
            select from actae.tenant_names as t
            where t.cluster <> v_here and t.tenant = v_row.tenant and t.name <> v_row.name
        ) then
            -- Recorded for two roles by other clusters (a restore never migrated, then
            -- backed up again): the same.
            v_shared := v_shared || format('%s (%s in another cluster)', v_row.tenant,
                v_row.name);
        elsif v_name = v_row.name then
            v_keep := v_keep || v_row.tenant;
        elsif not v_row.tenant = any(v_stored) then
            v_gone := v_gone || v_row.tenant;
        elsif v_row.name = '' then
            v_from := v_from || v_row.tenant;
            v_to := v_to || 0::oid;
            v_names := v_names || '(no role)'::text;
        else
            v_role := pg_catalog.to_regrole(pg_catalog.quote_ident(v_row.name));
            if v_role is null then
                v_missing := v_missing || v_row.name;
            else
                v_from := v_from || v_row.tenant;
                v_to := v_to || v_role;
                v_names := v_names || v_row.name;
            end if;
        end if;
    end loop;
    -- A row that moves to another role: a logical restore. Then this cluster's tenants with
    -- something stored under them are another database's (or made a first channel since
    -- the restore), and the rows under an oid could be either's. (None moves after
    -- pg_upgrade, which keeps oids: tenants made since are then no one else's.)
    v_mixed := array(
        select pg_catalog.pg_get_userbyid(x.tenant) from unnest(v_local) as x (tenant)
        where x.tenant = any(v_stored) and 0::oid < any(v_to)
        order by 1
    );
    -- And, whatever moves, a tenant recorded here after channels stored under its oid were
    -- made (by more than a minute), unless the other cluster recorded it too: it is this
    -- database's, and those channels are the backup's (inserted there by hand, say).
    for v_row in select t.tenant, t.name, t.recorded_at from actae.tenant_names as t
        where t.cluster = v_here and t.tenant = any(v_stored) order by t.tenant
    loop
        if not exists (
            select from actae.tenant_names as f
            where f.cluster <> v_here and f.tenant = v_row.tenant and f.name = v_row.name
        ) and exists (
            select from actae.channels as c
            where c.tenant = v_row.tenant and c.created_at < v_row.recorded_at - interval '1 minute'
        ) and not pg_catalog.pg_get_userbyid(v_row.tenant) = any(v_mixed) then
            v_mixed := v_mixed || pg_catalog.pg_get_userbyid(v_row.tenant);
        end if;
    end loop;
    -- Two rows of the other cluster onto one role.
    v_clash := array(
        select pg_catalog.format('%s (recorded oids %s)', r.rolname,
            pg_catalog.string_agg(m.old::text, ', ' order by m.old))
        from unnest(v_from || v_keep, v_to || v_keep) as m (old, new)
        inner join pg_catalog.pg_roles as r on r.oid = m.new
        group by r.rolname
        having count(*) > 1
        order by r.rolname
    );
    if cardinality(v_missing) > 0 or cardinality(v_clash) > 0 or cardinality(v_shared) > 0
        or cardinality(v_mixed) > 0 then
        perform actae._raise(
            '55000',
            pg_catalog.concat_ws('; ',
                case when cardinality(v_missing) > 0 then format(
                    'the tenants %s were recorded in another cluster (a logical restore) and '
                    'no role here has their names: restore the roles first (pg_dumpall '
                    '--roles-only of the source cluster); for a role renamed since its last '
                    'migrate, set its name on its row of actae.tenant_names; for a tenant '
                    'dropped on purpose, set its name to an empty string (what is stored '
                    'under it then belongs to no role)', array_to_string(v_missing, ', '))
                end,
                case when cardinality(v_clash) > 0 then format(
                    'several recorded tenants would move to one role: %s (a role renamed, or '
                    'dropped and created again, in the source since its last migrate): set '
                    'the right name on the other rows of actae.tenant_names',
                    array_to_string(v_clash, '; '))
                end,
                case when cardinality(v_shared) > 0 or cardinality(v_mixed) > 0 then format(
                    'this database has tenants of its own (%s) beside the ones of a backup '
                    'restored into it from another cluster: restore into a new database, '
                    'before any agent connects (after a pg_upgrade: a role renamed since its '
                    'last migrate; set its name on its row of another cluster)',
                    array_to_string(v_shared || v_mixed, ', '))
                end
            ) || '; then migrate again; nothing was changed',
            jsonb_build_object('missing', to_jsonb(v_missing), 'clash', to_jsonb(v_clash),
                'shared', to_jsonb(v_shared), 'mixed', to_jsonb(v_mixed))
        );
    end if;
    v_keep := v_keep || v_local;
    select count(*) into v_orphans from actae.channels as c
    where c.tenant <> 0 and not c.tenant = any(v_from || v_keep);
    if cardinality(v_from) > 0 or v_orphans > 0 then
        -- The old -> new mapping as constants (a multi-shard UPDATE on Citus), each row's
        -- new oid read from its old one: v_to[position of the old oid in v_from], 0 for an
        -- oid neither moved nor kept.
        execute format('update actae.channels as c set tenant = coalesce((%L::oid [])'
            '[pg_catalog.array_position(%L::oid [], c.tenant)], 0) '
            'where c.tenant <> 0 and not c.tenant = any(%L::oid [])', v_to, v_from, v_keep);
        execute format('update actae.executions as e set tenant = coalesce((%L::oid [])'
            '[pg_catalog.array_position(%L::oid [], e.tenant)], 0) '
            'where e.tenant <> 0 and not e.tenant = any(%L::oid [])', v_to, v_from, v_keep);
    end if;
    select array_agg(q) into v_quotas from actae.quotas as q where not q.tenant = any(v_keep);
    if v_quotas is not null then
        delete from actae.quotas as q where not q.tenant = any(v_keep);
        insert into actae.quotas (
            tenant, max_channels, max_bytes, max_events_per_channel, used_bytes,
            used_channels, measured_at, set_at
        )
        select
            v_to[array_position(v_from, x.tenant)], x.max_channels, x.max_bytes,
            x.max_events_per_channel, x.used_bytes, x.used_channels, x.measured_at, x.set_at
        from unnest(v_quotas) as x
        where v_to[array_position(v_from, x.tenant)] <> 0
        on conflict (tenant) do nothing;
    end if;
    delete from actae.tenant_names as t
    where t.cluster <> v_here and t.tenant = any(v_from || v_gone || v_local);
    insert into actae.tenant_names (tenant, name, cluster)
    select m.new, m.name, v_here from unnest(v_to, v_names) as m (new, name)
    where m.new <> 0
    on conflict (tenant, cluster) do nothing;
    update actae.tenant_names as t set cluster = v_here where t.cluster <> v_here;
    if cardinality(v_from) > 0 or v_orphans > 0 then
        raise warning 'tenants restored from another cluster moved to their roles here: %',
            concat_ws('; ',
                (select string_agg(format('%s (oid %s -> %s)', m.name, m.old, m.new), ', ')
                    from unnest(v_names, v_from, v_to) as m (name, old, new)),
                case when v_orphans > 0 then format(
                    '%s channels under no recorded tenant now belong to no role (tenant 0)',
                    v_orphans) end);
    end if;
end;
$$;
