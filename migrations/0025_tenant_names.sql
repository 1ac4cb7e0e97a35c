-- 0025_tenant_names: the name of every tenant role, so that a restore into another cluster
-- finds its tenants again.
--
-- channels.tenant, executions.tenant and quotas.tenant are role oids (0014, 0016). A
-- logical backup (pg_dumpall --roles-only, then pg_dump) restored into another cluster
-- re-creates the roles with new oids and copies the old numbers: every tenant lost its
-- channels, and an old oid that names another role there handed that role's logins the
-- first tenant's channels and runs. Physical copies and pg_upgrade keep role oids.
--
-- * actae.tenant_names: the name of every role that a channel's or quota's tenant oid named
--   when it was recorded (actae._remember_tenant, at channel creation, assign_tenant and
--   set_quota; sql/02_tenants.sql), and the system identifier (pg_control_system()) of the
--   cluster it named it in. A logical restore copies the rows: `actae migrate`
--   (actae._reconcile_tenant_names, sql/95_tenant_names.sql) finds another cluster's number
--   on them and moves each tenant back onto the role of its name. The cluster is on every
--   row and in its key, so rows restored into a database migrated before (with rows of its
--   own, the bootstrap superuser's oid 10 among them) load beside its rows and are told
--   apart; recorded_at tells a tenant recorded here after channels stored under its oid.
-- A reference table on Citus, like quotas, read by actae_auditor like every other table
-- (sql/90_grants.sql); agents have no access.
--
-- Filled here from the distinct tenants of the existing channels and quotas that name a
-- role of this cluster. A database restored from a logical backup taken before this
-- migration cannot be told apart: its oids are recorded here under whatever role holds them
-- now (docs/tenants.md: migrate the source first, then take the backup).
create table actae.tenant_names (
    tenant oid not null,
    name text not null,
    cluster bigint not null,
    recorded_at timestamptz not null default pg_catalog.clock_timestamp(),
    primary key (tenant, cluster)
);
alter table actae.tenant_names owner to actae_owner;
grant select on actae.tenant_names to actae_auditor;

insert into actae.tenant_names (tenant, name, cluster)
select
    r.oid,
    r.rolname::text,
    (select s.system_identifier from pg_catalog.pg_control_system() as s) as cluster
from pg_catalog.pg_roles as r
where r.oid in (
    select c.tenant from actae.channels as c
    union
    select q.tenant from actae.quotas as q
);
