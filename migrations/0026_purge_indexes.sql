-- 0026_purge_indexes: what purge asks of the ledger at every call, found through indexes.
--
-- * channels_lineage_idx: the forks that inherit from a channel. Purge asks it of every
--   channel it considers (actae._purge_blocked, before and under its lock; for expired keys,
--   the latest clock a fork inherits up to), and so does a LangGraph thread's delete. Each
--   question read every fork of the ledger (the rows with a parent_channel_id): 5 ms per
--   question at 5 000 forks, measured, against 0.4 ms through this index. Only forks carry a
--   lineage, so only they are indexed. fastupdate is off: forks waiting in a GIN index's
--   pending list made the planner's generic plan of the question a scan of the whole table
--   (36 s for a purge over 11 000 kept channels with 3 000 pending, 0.4 s without); a fork
--   is rare next to these reads and writes its entries at once.
-- * channels_closed_idx (closed_at, channel_id) replaces channels_closed_at_idx (closed_at):
--   purge reads the closed channels in keyset pages of that order (sql/30_admin.sql), which
--   only an index of both columns serves without sorting each page (20 000 channels closed
--   at one instant were read and sorted again at every page).
-- Both are built under the migration's lock on actae.channels (writes to channels wait for
-- the build; it reads only the forks, and the closed channels).
create index channels_lineage_idx on actae.channels using gin (lineage_ids)
with (fastupdate = off)
where parent_channel_id is not null;

create index channels_closed_idx on actae.channels (closed_at, channel_id)
where closed_at is not null;

drop index actae.channels_closed_at_idx;
