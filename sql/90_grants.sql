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
-- privileges for PUBLIC and the three roles differ from these in any way has all of them
-- revoked (with whatever was granted on from them, and as each other grantor for what it
-- granted, or, when that grantor can no longer reach the object, by taking back the grant
-- option it granted with) and the shipped ones granted again; the other objects get no
-- statement at all (on Citus a table's would go to every shard). Privileges of other roles
-- are left as they are. Run by a superuser, as every migrate (it takes each other grantor's
-- role to revoke what that role granted).
do $grants$
declare
    v_object record;
    v_grantor regrole;
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
                case when not f.operator_only and f.proname not like '\_%'
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
        select coalesce(pg_catalog.jsonb_agg(r.item order by r.item), '[]')
        into v_actual
        from (
            select pg_catalog.jsonb_build_array(
                a.column_name, x.grantee, x.grantor, x.privilege_type, x.is_grantable
            ) as item
            from (
                -- a null ACL is the default one: PUBLIC may execute a function
                select
                    null::text as column_name,
                    coalesce(p.proacl, pg_catalog.acldefault('f', p.proowner)) as acl
                from pg_catalog.pg_proc as p
                where v_object.kind <> '' and p.oid = v_object.oid
                union all
                select null, coalesce(c.relacl, pg_catalog.acldefault('r', c.relowner))
                from pg_catalog.pg_class as c
                where v_object.kind = '' and c.oid = v_object.oid
                union all
                select t.attname::text, t.attacl from pg_catalog.pg_attribute as t
                where v_object.kind = '' and t.attrelid = v_object.oid and t.attnum > 0
                    and not t.attisdropped
            ) as a
            cross join lateral pg_catalog.aclexplode(a.acl) as x
            where x.grantee = any(v_roles)
        ) as r;
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
            -- what another grantor granted on, revoked as that grantor; then the owner's
            for v_grantor in
                select distinct (e ->> 2)::oid::regrole
                from pg_catalog.jsonb_array_elements(v_actual) as e
                where (e ->> 2)::oid <> v_owner
            loop
                begin
                    execute pg_catalog.format('set local role %s', v_grantor);
                    execute pg_catalog.format(
                        'revoke all on %s%s from public, actae_agent, actae_auditor,'
                        ' actae_operator cascade', v_object.kind, v_object.name
                    );
                    reset role;
                exception when insufficient_privilege then
                    -- that grantor may no longer reach the object (no USAGE on the
                    -- schema): take back the grant option it granted with instead, which
                    -- revokes what it granted
                    reset role;
                    execute pg_catalog.format(
                        'revoke grant option for all on %s%s from %s cascade', v_object.kind,
                        v_object.name, v_grantor
                    );
                end;
            end loop;
            execute pg_catalog.format(
                'revoke all on %s%s from public, actae_agent, actae_auditor, actae_operator'
                ' cascade', v_object.kind, v_object.name
            );
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
        end if;
    end loop;
end;
$grants$;
