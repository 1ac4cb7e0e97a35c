-- Ownership and privileges of every function, table and view in schema actae, re-applied on
-- each migrate, so a migrated database's privileges for Actae's roles are exactly these
-- whatever was granted or revoked by hand since (docs/operations.md).
-- Functions are owned by the NOLOGIN role actae_owner (which owns the tables), so
-- SECURITY DEFINER runs with exactly the rights of the ledger and nothing more.
-- PUBLIC can execute nothing; actae_agent can execute the API (names without a leading
-- underscore) except the operator functions cancel_execution, purge, cancel_run,
-- assign_tenant, set_quota and measure_usage, which only actae_operator (a member of
-- actae_agent and actae_auditor, migration 0002) can execute; actae_auditor can execute the
-- reads. A function on which one of the three roles holds a privilege not listed here has
-- every privilege of the three revoked first. Privileges of other roles are left as they are.
do $grants$
declare
    v_function record;
    v_roles oid [] := array[
        'actae_agent'::regrole, 'actae_auditor'::regrole, 'actae_operator'::regrole
    ]::oid [];
begin
    for v_function in
        select
            f.signature,
            f.operator_only,
            f.name not like '\_%' and not f.operator_only as agent,
            f.name in (
                'get_execution', 'list_executions', 'list_expired_leases', 'get_channel',
                'list_events', 'get_state', 'channel_topic', 'get_run', 'list_runs',
                'queue_topic', 'get_execution_trace', 'langgraph_get_tuple', 'langgraph_list',
                'list_completed', 'channel_lineage',
                -- the console reads (sql/60_console.sql) and follow_channel, which registers
                -- notifications for an existing channel; annotate_channel is agent-only
                'list_channels', 'timeline', 'fork_tree', 'diff_states', 'decision_trail',
                'follow_channel'
            ) as auditor,
            f.acl
        from (
            select
                p.oid::regprocedure as signature,
                p.proname as name,
                p.proacl as acl,
                p.proname in (
                    'cancel_execution', 'purge', 'cancel_run', 'assign_tenant', 'set_quota',
                    'measure_usage'
                ) as operator_only
            from pg_catalog.pg_proc as p
            where p.pronamespace = 'actae'::regnamespace
        ) as f
    loop
        execute pg_catalog.format('alter function %s owner to actae_owner', v_function.signature);
        execute pg_catalog.format('revoke all on function %s from public', v_function.signature);
        -- Operator-only: an agent must not cancel others' work or delete history.
        if exists (
            select from pg_catalog.aclexplode(v_function.acl) as a
            where a.grantee = any(v_roles)
                and not (
                    a.privilege_type = 'EXECUTE' and case a.grantee
                        when 'actae_agent'::regrole then v_function.agent
                        when 'actae_auditor'::regrole then v_function.auditor
                        else v_function.operator_only
                    end
                )
        ) then
            execute pg_catalog.format(
                'revoke all on function %s from actae_agent, actae_auditor, actae_operator',
                v_function.signature
            );
        end if;
        if v_function.operator_only then
            execute pg_catalog.format(
                'grant execute on function %s to actae_operator', v_function.signature
            );
        elsif v_function.agent then
            execute pg_catalog.format(
                'grant execute on function %s to actae_agent', v_function.signature
            );
        end if;
        if v_function.auditor then
            execute pg_catalog.format(
                'grant execute on function %s to actae_auditor', v_function.signature
            );
        end if;
    end loop;
end;
$grants$;

-- Tables and views owned by actae_owner (not schema_migrations, the migrating role's):
-- actae_agent and actae_operator hold nothing on them (agents call functions), and
-- actae_auditor only reads: every column of every one, except claim_token of executions and
-- runs (migrations 0004, 0007) and all of topic_secret (0020). A relation where the three
-- hold anything else, or the auditor lacks a read, has every privilege of the three revoked
-- and the auditor's reads granted again; the others are not touched (no statement at all,
-- which on Citus would go to every shard).
do $table_grants$
declare
    v_relation record;
    v_roles oid [] := array[
        'actae_agent'::regrole, 'actae_auditor'::regrole, 'actae_operator'::regrole
    ]::oid [];
begin
    for v_relation in
        select
            c.oid::regclass as name,
            c.relname in ('executions', 'runs') as by_column,
            c.relname <> 'topic_secret' as readable,
            c.relacl as acl
        from pg_catalog.pg_class as c
        where c.relnamespace = 'actae'::regnamespace
            and c.relkind in ('r', 'p', 'v', 'm')
            and c.relowner = 'actae_owner'::regrole
    loop
        if exists (
            select from pg_catalog.aclexplode(v_relation.acl) as a
            where a.grantee = any(v_roles)
                and (a.grantee <> 'actae_auditor'::regrole or a.privilege_type <> 'SELECT'
                    or v_relation.by_column or not v_relation.readable)
        ) or exists (
            select from pg_catalog.pg_attribute as t
            cross join lateral pg_catalog.aclexplode(t.attacl) as a
            where t.attrelid = v_relation.name and a.grantee = any(v_roles)
                and (a.grantee <> 'actae_auditor'::regrole or a.privilege_type <> 'SELECT'
                    or not v_relation.by_column or t.attname = 'claim_token')
        ) or (
            v_relation.readable and not v_relation.by_column
            and not pg_catalog.has_table_privilege('actae_auditor', v_relation.name, 'SELECT')
        ) or exists (
            select from pg_catalog.pg_attribute as t
            where v_relation.by_column and t.attrelid = v_relation.name and t.attnum > 0
                and not t.attisdropped and t.attname <> 'claim_token'
                and not pg_catalog.has_column_privilege(
                    'actae_auditor', v_relation.name, t.attnum, 'SELECT'
                )
        ) then
            execute pg_catalog.format(
                'revoke all on %s from actae_agent, actae_auditor, actae_operator',
                v_relation.name
            );
            if v_relation.by_column then
                execute pg_catalog.format(
                    'grant select (%s) on %s to actae_auditor',
                    (
                        select pg_catalog.string_agg(
                            pg_catalog.quote_ident(t.attname), ', ' order by t.attnum
                        )
                        from pg_catalog.pg_attribute as t
                        where t.attrelid = v_relation.name and t.attnum > 0
                            and not t.attisdropped and t.attname <> 'claim_token'
                    ),
                    v_relation.name
                );
            elsif v_relation.readable then
                execute pg_catalog.format(
                    'grant select on %s to actae_auditor', v_relation.name
                );
            end if;
        end if;
    end loop;
end;
$table_grants$;
