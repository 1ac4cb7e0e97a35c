-- 0005_lz4_compression: compress large JSON values with lz4 instead of pglz.
--
-- States, payloads, params and results above the TOAST threshold (about 2 kB) are
-- compressed when written. lz4 costs a fraction of pglz's CPU: a 64 kB state transition ran
-- about twice as fast in an A/B on the same server. Only new values use it (old ones stay
-- readable as they are). Skipped on a server built without lz4 support.
do $compression$
begin
    if exists (
        select 1 from pg_catalog.pg_settings
        where name = 'default_toast_compression' and 'lz4' = any(enumvals)
    ) then
        alter table actae.snapshots alter column state set compression lz4;
        alter table actae.events alter column payload set compression lz4;
        alter table actae.executions alter column params set compression lz4;
        alter table actae.executions alter column result set compression lz4;
    end if;
end;
$compression$;
