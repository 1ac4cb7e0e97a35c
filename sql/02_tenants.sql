-- Tenants (docs/tenants.md): a tenant is a role granted actae_agent directly (actae_operator
-- excepted), LOGIN or NOLOGIN; a login belongs to every tenant it is a member of through
-- any chain of grants, or is its own tenant when it is granted actae_agent directly or is a
-- superuser. Every channel records its tenant; agent-facing functions act only on channels
-- whose tenant session_user is a member of (SECURITY DEFINER runs as actae_owner, so
-- current_user is never the caller).

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
-- too, or reads the channel after this commits; returns the channel.
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
