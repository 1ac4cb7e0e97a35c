-- 0003_watchers: appends announce new cursors (NOTIFY) only while someone watches.
--
-- A notifying transaction holds a database-wide lock from its pre-commit until its commit
-- record is flushed, so notifying appends can never share a WAL flush. Announcing only the
-- channels with a live registration (actae.watch_channel) keeps unwatched runs off that
-- lock. The flag lives on the channel row that every append locks, which is what makes
-- "LISTEN, register, read from the last cursor" miss nothing.
alter table actae.channels add column watched_until timestamptz;
