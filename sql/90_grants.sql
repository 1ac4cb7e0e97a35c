-- Ownership and privileges of every function, table and view in schema actae, re-applied on
-- each migrate, so a migrated database's privileges for PUBLIC and Actae's roles are exactly
-- these whatever was granted or revoked by hand since (docs/operations.md).
-- Functions are owned by the NOLOGIN role actae_owner (which owns the tables), so
-- SECURITY DEFINER runs with exactly the rights of the ledger and nothing more.
-- PUBLIC can execute nothing; actae_agent can execute the API (names without a leading
-- underscore) except the operator functions cancel_execution, purge, cancel_run,
-- assign_tenant, set_quota and measure_usage, which only actae_operator (a member of
-- actae_agent and actae_auditor, migration 0002) can execute; actae_auditor can execute the
-- reads. Tables and views owned by actae_owner (not schema_migrations, the migrating
-- role's): PUBLIC, actae_agent and actae_operator hold nothing on them (agents call
-- functions), and actae_auditor only reads every column of every one, except claim_token
-- of executions and runs (migrations 0004, 0007) and all of topic_secret (0020).
-- Every privilege is granted by actae_owner without grant option. An object whose
-- privileges for PUBLIC and the three roles differ from these in any way is reset: the
-- owner's grants to them are revoked with whatever was granted on from them (CASCADE); then
-- what another role granted them, as that role (one that has become a superuser since is an
-- ordinary role again for that moment, within the transaction: a superuser's REVOKE acts as
-- the owner's); what still stands came through a grant option the owner gave a role
-- outside Actae's (a chain through a role that can no longer reach the schema), and those
-- grant options are taken back (the roles keep their privileges, not the right to pass
-- them on); then the shipped privileges are granted, and checked: a reset that does not end
-- at them stops the migrate, naming the object. The other objects get no statement at all
-- (on Citus a table's would go to every shard). Privileges of other roles are left as they
-- are otherwise. Run by a superuser, as every migrate.
--
-- pg_temp.actae_acl: the ACL entries of one function (p_function) or one table or view and
-- its columns (column_name set), a null ACL read as the default one (PUBLIC may execute a
-- function). Session-temporary: a helper of this file, not part of the schema.
create or replace function pg_temp.actae_acl(
    p_function boolean,
    p_oid oid
) returns table (
    column_name text, grantee oid, grantor oid, privilege_type text, is_grantable boolean
)
language sql
stable
as $$
    select a.column_name, x.grantee, x.grantor, x.privilege_type, x.is_grantable
    from (
        select
            null::text as column_name,
            coalesce(p.proacl, pg_catalog.acldefault('f', p.proowner)) as acl
        from pg_catalog.pg_proc as p
        where p_function and p.oid = p_oid
        union all
        select null, coalesce(c.relacl, pg_catalog.acldefault('r', c.relowner))
        from pg_catalog.pg_class as c
        where not p_function and c.oid = p_oid
        union all
        select t.attname::text, t.attacl from pg_catalog.pg_attribute as t
        where
            not p_function and t.attrelid = p_oid and t.attnum > 0
            and not t.attisdropped
    ) as a
    cross join lateral pg_catalog.aclexplode(a.acl) as x
$$;

-- pg_temp.actae_held: the entries of pg_temp.actae_acl held by p_roles, as a sorted JSON
-- array of [column, grantee, grantor, privilege, grantable] (one value to compare).
create or replace function pg_temp.actae_held(
    p_function boolean,
    p_oid oid,
    p_roles oid[]
) returns jsonb
language sql
stable
as $$
    select coalesce(pg_catalog.jsonb_agg(r.item order by r.item), '[]')
    from (
        select pg_catalog.jsonb_build_array(
            e.column_name, e.grantee, e.grantor, e.privilege_type, e.is_grantable
        ) as item
        from pg_temp.actae_acl(p_function, p_oid) as e
        where e.grantee = any(p_roles)
    ) as r
$$;

do $grants$
declare
    v_object record;
    v_option record;
    v_grantor regrole;
    v_super boolean;
    v_roles oid [] := array[
        0, 'actae_agent'::regrole, 'actae_auditor'::regrole, 'actae_operator'::regrole
    ]::oid [];
    v_owner oid := 'actae_owner'::regrole;
    v_actual jsonb;
    v_expected jsonb;
    v_columns text;
begin
    for v_object in
        -- functions: execute for the roles in grantees
        select
            'function ' as kind,
            f.oid,
            f.oid::regprocedure::text as name,
            array_remove(array[
                case when f.operator_only then 'actae_operator'::regrole end,
                case when not f.operator_only and left(f.proname, 1) <> '_'
                    then 'actae_agent'::regrole end,
                case when f.proname in (
                    'get_execution', 'list_executions', 'list_expired_leases', 'get_channel',
                    'list_events', 'get_state', 'channel_topic', 'get_run', 'list_runs',
                    'queue_topic', 'get_execution_trace', 'langgraph_get_tuple',
                    'langgraph_list', 'list_completed', 'channel_lineage',
                    -- the console reads (sql/60_console.sql) and follow_channel, which
                    -- registers notifications for an existing channel; annotate_channel is
                    -- agent-only
                    'list_channels', 'timeline', 'fork_tree', 'diff_states',
                    'decision_trail', 'follow_channel'
                ) then 'actae_auditor'::regrole end
            ], null)::oid [] as grantees,
            'EXECUTE' as privilege,
            null::text [] as columns
        from (
            select
                p.oid,
                p.proname,
                p.proname in (
                    'cancel_execution', 'purge', 'cancel_run', 'assign_tenant', 'set_quota',
                    'measure_usage'
                ) as operator_only
            from pg_catalog.pg_proc as p
            where p.pronamespace = 'actae'::regnamespace
        ) as f
        union all
        -- tables and views: select for the auditor, on the relation or on columns
        select
            '' as kind,
            c.oid,
            c.oid::regclass::text as name,
            case when c.relname <> 'topic_secret' then array['actae_auditor'::regrole]::oid []
                else '{}' end as grantees,
            'SELECT' as privilege,
            case when c.relname in ('executions', 'runs') then array(
                select t.attname::text from pg_catalog.pg_attribute as t
                where t.attrelid = c.oid and t.attnum > 0 and not t.attisdropped
                    and t.attname <> 'claim_token'
                order by t.attnum
            ) end as columns
        from pg_catalog.pg_class as c
        where c.relnamespace = 'actae'::regnamespace
            and c.relkind in ('r', 'p', 'v', 'm')
            and c.relowner = 'actae_owner'::regrole
    loop
        if v_object.kind <> '' then
            execute pg_catalog.format('alter function %s owner to actae_owner', v_object.name);
        end if;
        -- What PUBLIC and the three roles hold (column null: on the whole object) ...
        v_actual := pg_temp.actae_held(v_object.kind <> '', v_object.oid, v_roles);
        -- ... against what they should hold.
        select coalesce(pg_catalog.jsonb_agg(r.item order by r.item), '[]')
        into v_expected
        from (
            select pg_catalog.jsonb_build_array(
                n.column_name, g.grantee, v_owner, v_object.privilege, false
            ) as item
            from pg_catalog.unnest(v_object.grantees) as g (grantee)
            cross join (
                select null::text as column_name where v_object.columns is null
                union all
                select c from pg_catalog.unnest(v_object.columns) as c
            ) as n
        ) as r;
        if v_actual <> v_expected then
            -- 1. the owner's grants to them, and what was granted on from those
            execute pg_catalog.format(
                'revoke all on %s%s from public, actae_agent, actae_auditor, actae_operator'
                ' cascade', v_object.kind, v_object.name
            );
            -- 2. what another role granted them, revoked as that role
            for v_grantor in
                select distinct e.grantor::regrole
                from pg_temp.actae_acl(v_object.kind <> '', v_object.oid) as e
                where e.grantee = any(v_roles)
            loop
                begin
                    -- A superuser's REVOKE acts as the owner's, and grant options a
                    -- superuser holds never lapse: a grantor that became one revokes what it
                    -- granted as the role it was (undone within this transaction).
                    v_super := (select r.rolsuper from pg_catalog.pg_roles as r
                        where r.oid = v_grantor);
                    if v_super then
                        execute pg_catalog.format('alter role %s nosuperuser', v_grantor);
                    end if;
                    execute pg_catalog.format('set local role %s', v_grantor);
                    execute pg_catalog.format(
                        'revoke all on %s%s from public, actae_agent, actae_auditor,'
                        ' actae_operator cascade', v_object.kind, v_object.name
                    );
                    reset role;
                    if v_super then
                        execute pg_catalog.format('alter role %s superuser', v_grantor);
                    end if;
                exception when insufficient_privilege then
                    reset role;  -- it cannot reach the object any more: step 3
                end;
            end loop;
            -- 3. what still stands came through a grant option the owner gave: take back
            -- every such grant option on the object
            if exists (
                select from pg_temp.actae_acl(v_object.kind <> '', v_object.oid) as e
                where e.grantee = any(v_roles)
            ) then
                for v_option in
                    select distinct e.column_name, e.grantee::regrole as grantee
                    from pg_temp.actae_acl(v_object.kind <> '', v_object.oid) as e
                    where e.grantor = v_owner and e.is_grantable and e.grantee <> v_owner
                loop
                    execute pg_catalog.format(
                        'revoke grant option for all%s on %s%s from %s cascade',
                        coalesce(' (' || pg_catalog.quote_ident(v_option.column_name) || ')',
                            ''),
                        v_object.kind, v_object.name, v_option.grantee
                    );
                end loop;
            end if;
            v_columns := (
                select ' (' || pg_catalog.string_agg(pg_catalog.quote_ident(c), ', ') || ')'
                from pg_catalog.unnest(v_object.columns) as c
            );
            if cardinality(v_object.grantees) > 0 then
                execute pg_catalog.format(
                    'grant %s%s on %s%s to %s', v_object.privilege, coalesce(v_columns, ''),
                    v_object.kind, v_object.name,
                    (
                        select pg_catalog.string_agg(g::regrole::text, ', ')
                        from pg_catalog.unnest(v_object.grantees) as g
                    )
                );
            end if;
            v_actual := pg_temp.actae_held(v_object.kind <> '', v_object.oid, v_roles);
            if v_actual <> v_expected then
                raise exception 'privileges on % could not be reset: held %, shipped %',
                    v_object.kind || v_object.name, v_actual, v_expected;
            end if;
        end if;
    end loop;
end;
$grants$;
