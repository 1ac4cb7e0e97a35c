-- Distribute an Actae database on Citus by channel_id (docs/SCALING.md).
--
-- Not loaded by `actae migrate` (it loads only sql/*.sql). Run it once, by hand, on the
-- Citus coordinator, after `actae migrate` and before any data is written:
--     psql "$ACTAE_DSN" -v ON_ERROR_STOP=1 -f sql/citus/distribute.sql
-- Requires Citus 11.0 or later (create_distributed_function with colocate_with).
-- It was not run in Actae's CI: Citus is not packaged for the Debian release CI uses.
--
-- Every table is hash-distributed on channel_id and co-located with actae.channels, so all
-- rows of one channel live on one shard and a call on one channel is a router query.
-- Every primary key and unique constraint leads with channel_id, which Citus requires
-- (tests/sql/admin/keys_lead_with_channel_id.sql keeps it that way).

select create_distributed_table('actae.channels', 'channel_id');
select create_distributed_table(
    'actae.events', 'channel_id', colocate_with => 'actae.channels'
);
select create_distributed_table(
    'actae.snapshots', 'channel_id', colocate_with => 'actae.channels'
);
select create_distributed_table(
    'actae.operations', 'channel_id', colocate_with => 'actae.channels'
);
select create_distributed_table(
    'actae.executions', 'channel_id', colocate_with => 'actae.channels'
);

-- The migrate runner's bookkeeping: small, read by ledger_status, copied to every node.
select create_reference_table('actae.schema_migrations');

-- Delegated functions run entirely on the worker that holds the channel's shard: one
-- network round trip for the whole call. Only functions that never read another channel
-- are delegated; the distribution argument is their channel_id.
select create_distributed_function(
    'actae.get_channel(text)', 'p_channel_id', colocate_with => 'actae.channels'
);
select create_distributed_function(
    'actae.close_channel(text)', 'p_channel_id', colocate_with => 'actae.channels'
);
select create_distributed_function(
    'actae.set_key_ttl(text, interval)', 'p_channel_id', colocate_with => 'actae.channels'
);
select create_distributed_function(
    'actae.create_channel(text, jsonb)', 'p_channel_id', colocate_with => 'actae.channels'
);

-- Deployments that never fork (or whose forks live on the same worker as their
-- ancestors) can delegate the hot path too. On a fork, these functions read the
-- ancestors' rows (lineage), which sit on other shards, and a delegated function may not
-- run a query on another shard; so they are left to the coordinator here, where each
-- statement inside them is still a single-shard router query.
--     select create_distributed_function(
--         'actae.claim_execution(text, text, text, jsonb, text[], integer)',
--         'p_channel_id', colocate_with => 'actae.channels');
--     select create_distributed_function(
--         'actae.record_event(text, text, jsonb, text, bigint)',
--         'p_channel_id', colocate_with => 'actae.channels');
--     select create_distributed_function(
--         'actae.transition_state(text, text, jsonb, jsonb, bigint, bigint, text)',
--         'p_channel_id', colocate_with => 'actae.channels');
--     select create_distributed_function(
--         'actae.list_events(text, bigint, integer)',
--         'p_channel_id', colocate_with => 'actae.channels');
--     select create_distributed_function(
--         'actae.get_state(text, bigint, bigint)',
--         'p_channel_id', colocate_with => 'actae.channels');
--
-- heartbeat_execution, complete_execution, fail_execution, cancel_execution and
-- get_execution(uuid) take only an execution_id, which is not the distribution column:
-- they are not delegated and their lookup by execution_id visits every shard (see
-- docs/SCALING.md for the trade-off and the fix). fork_channel writes two channels and
-- purge visits all of them: both run on the coordinator.
