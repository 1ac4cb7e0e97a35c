-- Distribute an Actae database on Citus by channel_id (docs/SCALING.md).
--
-- Not loaded by `actae migrate` (it loads only sql/*.sql). Run it on the Citus coordinator
-- after `actae migrate` and sql/citus/owner_login.psql, before any data is written:
--     psql "$ACTAE_DSN" -v ON_ERROR_STOP=1 -f sql/citus/distribute.sql
-- and again after every `actae migrate` that adds a table (it skips what is already
-- distributed). Checked on Citus 13.2 with PostgreSQL 15 by `make test-citus`
-- (tests/citus/cluster.py: a coordinator and two workers), which also checks that every
-- table of schema actae is listed here.
--
-- Every ledger table is hash-distributed on channel_id and co-located with actae.channels,
-- so all rows of one channel live on one shard and a statement on one channel is a router
-- query. Every primary key and unique constraint leads with channel_id, which Citus
-- requires (tests/sql/admin/keys_lead_with_channel_id.sql keeps it that way).

-- The functions' Citus settings (sql/91_function_settings.sql: DateStyle and the like, so
-- values reach the workers as they were meant) are written by `actae migrate` when the
-- citus extension exists; a database migrated before it was installed has none of them.
do $settings$
begin
    if not exists (
        select 1 from pg_catalog.pg_proc as p
        where p.oid = 'actae.claim_execution'::regproc
            and 'DateStyle=ISO, MDY' = any(p.proconfig)
    ) then
        raise exception 'this database was migrated before the citus extension was installed:'
            ' run actae migrate again, then this script'
            using errcode = '55000';
    end if;
end;
$settings$;

-- Citus refuses to distribute a table with triggers. The one Actae has deletes the trace
-- rows of deleted executions (migration 0009); purge deletes them itself as well, so on
-- the cluster the trigger is dropped.
-- (Checked first: Citus refuses even a DROP TRIGGER IF EXISTS on a distributed table.)
do $drop$
begin
    if exists (
        select 1 from pg_catalog.pg_trigger as t
        where t.tgrelid = 'actae.executions'::regclass
            and t.tgname = 'executions_forget_traces'
    ) then
        drop trigger executions_forget_traces on actae.executions;
    end if;
end;
$drop$;

select create_distributed_table(t.name::regclass, 'channel_id', colocate_with => t.colocate_with)
from (
    values
    ('actae.channels', 'default'),
    ('actae.events', 'actae.channels'),
    ('actae.snapshots', 'actae.channels'),
    ('actae.operations', 'actae.channels'),
    ('actae.executions', 'actae.channels'),
    ('actae.execution_traces', 'actae.channels'),
    ('actae.runs', 'actae.channels'),
    ('actae.annotations', 'actae.channels'),
    ('actae.langgraph_threads', 'actae.channels'),
    ('actae.langgraph_checkpoints', 'actae.channels'),
    ('actae.langgraph_writes', 'actae.channels')
) as t (name, colocate_with)
where not exists (
    select 1 from pg_dist_partition as p
    where p.logicalrelid = t.name::regclass
);

-- The migrate runner's bookkeeping: small, read by ledger_status, copied to every node.
-- Quotas (0016): one row per tenant, read at channel creation and append on any node.
-- The topic secret (0020): one row, read when a topic is computed.
-- Tenant names (0025): one row per tenant, probed at channel creation on any node;
-- rewritten by actae migrate after a restore.
select create_reference_table(t.name::regclass)
from (
    values
    ('actae.schema_migrations'), ('actae.quotas'), ('actae.topic_secret'),
    ('actae.tenant_names')
) as t (name)
where not exists (
    select 1 from pg_dist_partition as p
    where p.logicalrelid = t.name::regclass
);

-- No function is delegated (create_distributed_function with a distribution argument),
-- although the functions that touch only their own channel could be: Citus 13.2.2 crashes
-- the coordinator (server process terminated, crash recovery) when a delegated function is
-- called with NULL as its distribution argument, and every Actae function takes channel_id
-- from its caller, where NULL must be an AC400 error, not an outage. docs/SCALING.md has
-- the measured cost of running them on the coordinator instead.
--
-- So every call runs on the coordinator, and each statement inside it is a router query
-- on the channel's shard (docs/SCALING.md counts them per call), except:
-- * heartbeat_execution, complete_execution, fail_execution, cancel_execution without
--   their last argument channel_id: the channel is first looked up on every shard;
-- * in a fork, the reads of inherited rows: one router query per ancestor (its shard);
-- * fork_channel writes two channels (a two-shard transaction, two-phase commit);
-- * purge, list_executions without a channel, list_expired_leases and the audit views
--   read every shard.
