-- Ownership and privileges of every function in schema actae, re-applied on each migrate.
-- Functions are owned by the NOLOGIN role actae_owner (which owns the tables), so
-- SECURITY DEFINER runs with exactly the rights of the ledger and nothing more.
-- PUBLIC can execute nothing; actae_agent can execute the API (names without a leading
-- underscore) except the operator functions cancel_execution, purge and cancel_run, which only
-- actae_operator (a member of actae_agent and actae_auditor, migration 0002) can execute;
-- actae_auditor can execute the reads.
do $grants$
declare
    v_function record;
begin
    for v_function in
        select p.oid::regprocedure as signature, p.proname as name
        from pg_catalog.pg_proc as p
        where p.pronamespace = 'actae'::regnamespace
    loop
        execute pg_catalog.format('alter function %s owner to actae_owner', v_function.signature);
        execute pg_catalog.format('revoke all on function %s from public', v_function.signature);
        if v_function.name in (
            'cancel_execution', 'purge', 'cancel_run', 'assign_tenant', 'set_quota',
            'measure_usage'
        ) then
            -- Operator-only: an agent must not cancel others' work or delete history.
            execute pg_catalog.format('revoke all on function %s from actae_agent', v_function.signature);
            execute pg_catalog.format(
                'grant execute on function %s to actae_operator', v_function.signature
            );
        elsif v_function.name not like '\_%' then
            execute pg_catalog.format('grant execute on function %s to actae_agent', v_function.signature);
        end if;
        if v_function.name in (
            'get_execution', 'list_executions', 'list_expired_leases', 'get_channel',
            'list_events', 'get_state', 'channel_topic', 'get_run', 'list_runs', 'queue_topic',
            'get_execution_trace', 'langgraph_get_tuple', 'langgraph_list', 'list_completed',
            'channel_lineage'
        ) then
            execute format(
                'grant execute on function %s to actae_auditor', v_function.signature
            );
        end if;
        -- The console reads (sql/60_console.sql) and follow_channel, which registers
        -- notifications for an existing channel; annotate_channel is agent-only.
        if v_function.name in (
            'list_channels', 'timeline', 'fork_tree', 'diff_states', 'decision_trail',
            'follow_channel'
        ) then
            execute pg_catalog.format(
                'grant execute on function %s to actae_auditor', v_function.signature
            );
        end if;
    end loop;
end;
$grants$;
