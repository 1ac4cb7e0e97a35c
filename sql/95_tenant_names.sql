-- Loaded last by every `actae migrate` (sql/*.sql in name order, one transaction, as a
-- superuser): move tenant oids restored from another cluster back onto the roles of their
-- recorded names (actae._reconcile_tenant_names, sql/02_tenants.sql; migration 0025). It
-- raises, and the migrate fails with nothing changed, when a recorded tenant has no role
-- here. After a logical restore into another cluster, migrate before agents connect
-- (docs/tenants.md).
select actae._reconcile_tenant_names();
