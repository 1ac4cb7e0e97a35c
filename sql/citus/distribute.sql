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
-- requires (tests/sql/operations/keys_lead_with_channel_id.sql keeps it that way).

select create_distributed_table(t.name, 'channel_id', colocate_with => t.colocate_with)
from (
    values
    ('actae.channels', 'default'),
    ('actae.events', 'actae.channels'),
    ('actae.snapshots', 'actae.channels'),
    ('actae.operations', 'actae.channels'),
    ('actae.executions', 'actae.channels')
) as t (name, colocate_with)
where not exists (
    select 1 from pg_dist_partition as p
    where p.logicalrelid = t.name::regclass
);

-- The migrate runner's bookkeeping: small, read by ledger_status, copied to every node.
select create_reference_table(t.name)
from (values ('actae.schema_migrations')) as t (name)
where not exists (
    select 1 from pg_dist_partition as p
    where p.logicalrelid = t.name::regclass
);

-- Delegated functions: the coordinator sends the whole call to the worker that holds the
-- channel's shard (one round trip instead of one per statement) when it is not inside a
-- transaction block. Only functions that read and write nothing but their own channel,
-- never NULL as channel (Citus 13.2 hashes the distribution argument without a null
-- check), and send no NOTIFY (watch() listens on the coordinator) are delegated.
select
    create_distributed_function(
        f.signature, 'p_channel_id', colocate_with => 'actae.channels'
    )
from (
    values
    ('actae.get_channel(text)'),
    ('actae.create_channel(text, jsonb)'),
    ('actae.close_channel(text)'),
    ('actae.set_key_ttl(text, interval)')
) as f (signature);

-- Not delegated, run on the coordinator (each statement inside is still a router query on
-- the channel's shard, docs/SCALING.md has the count per call):
-- * claim_execution, get_execution(channel_id, key_name), list_events, get_state,
--   record_event, transition_state: in a fork they read the ancestors' rows, which live
--   on other shards; record_event and transition_state also NOTIFY watchers.
-- * heartbeat_execution, complete_execution, fail_execution, cancel_execution: channel_id
--   is their optional last argument (null: found by execution_id), and a null
--   distribution argument must not reach Citus' delegation.
-- * fork_channel writes two channels (a two-shard transaction); purge, list_executions
--   without a channel, list_expired_leases and the audit views read every shard.
