-- 0017_execution_id_channel_index: the lookup index of heartbeat, complete and fail holds
-- (execution_id, channel_id) instead of execution_id alone.
--
-- Those functions find the row with `channel_id = $1 and execution_id = $2`. Before the
-- first ANALYZE of actae.executions (a new database, or a table that grew fast since), the
-- planner's generic plan for that statement was a BitmapAnd of the execution_id index and
-- the primary key's channel_id prefix: it read every key of the channel to update one row,
-- so each completion in a channel cost more than the one before (claim+complete at one
-- client fell from about 1 000 to 700 pairs/s over 3 000 keys of one channel). With both
-- columns in one index, both conditions are index conditions of one scan, which the planner
-- prefers with or without statistics. Lookups by execution_id alone (no channel given) use
-- the same index by its leading column.
--
-- Not unique, like the index it replaces: ids are time-ordered UUIDs (0015), and the table
-- is distributed by channel_id on Citus, where an index need not lead with it.
--
-- Building the index blocks writes to actae.executions for the time it takes. On a large
-- ledger an operator builds it first, without blocking, and this migration then only drops
-- the old index:
--   create index concurrently executions_execution_id_channel_idx
--       on actae.executions (execution_id, channel_id);
create index if not exists executions_execution_id_channel_idx
on actae.executions (execution_id, channel_id);

drop index if exists actae.executions_execution_id_idx;
