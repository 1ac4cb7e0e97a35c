-- 0016_quotas: per-tenant quotas (issue 14, F9) and the index the watch cap counts with.
--
-- * actae.quotas: one row per tenant (channels.tenant, a role oid) that has limits, set by
--   actae_operator with actae.set_quota. A null limit is no limit; a tenant without a row
--   has none. used_bytes / used_channels / measured_at are written by actae.measure_usage
--   (periodic, operator): the bytes quota is enforced against that measurement, so it may
--   be overrun by what the tenant writes between two measurements (docs/hardening.md).
-- * channels_tenant_idx: a tenant's channels, for the exact max_channels count at channel
--   creation (only for tenants with that quota). tenant never changes, so appends' channel
--   updates stay HOT; it costs one index entry per new channel.
-- * channels_watched_idx: the channels with a watch registration, by tenant, so that
--   watch_channel counts a tenant's live registrations without reading its other channels.
--   Appends never change tenant or watched_until, so their channel updates stay HOT.
create table actae.quotas (
    tenant oid primary key,
    max_channels bigint check (max_channels >= 0),
    max_bytes bigint check (max_bytes >= 0),
    max_events_per_channel bigint check (max_events_per_channel >= 0),
    used_bytes bigint,
    used_channels bigint,
    measured_at timestamptz,
    set_at timestamptz not null default pg_catalog.clock_timestamp()
);
alter table actae.quotas owner to actae_owner;
grant select on actae.quotas to actae_auditor;

create index if not exists channels_tenant_idx on actae.channels (tenant, channel_id);

create index channels_watched_idx on actae.channels (tenant, watched_until)
where watched_until is not null;
