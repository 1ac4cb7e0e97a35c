-- actae._reconcile_tenant_names after a restore in which no recorded tenant moves, when a
-- tenant of this database made its first channel before the migrate under an oid the backup
-- had channels under that it never recorded (inserted there by hand): those channels are
-- older than the tenant's row here, so they came with the backup, and which are whose
-- cannot be told: it refuses (55000), nothing changed. A tenant recorded here before its
-- channels (made after a pg_upgrade) passes.
begin;
\ir ../helpers.psql
\ir ../tenant_names_helpers.psql
select plan(3);

select pg_temp.two_tenants('tap_rz_a', 'tap_rz_b', 'tap_rz_al', 'tap_rz_bl');
set local session authorization tap_rz_bl;
select actae.create_channel('tap-rz-b');
reset session authorization;
update actae.tenant_names set cluster = 1 where name = 'tap_rz_b';  -- the backup's tenant
-- The backup's channel under tap_rz_a's oid, inserted by hand a day before.
insert into actae.channels (channel_id, tenant, created_at)
values ('tap-rz-old', 'tap_rz_a'::regrole, clock_timestamp() - interval '1 day');
set local session authorization tap_rz_al;
select actae.create_channel('tap-rz-a-own');
reset session authorization;
select pg_temp.tenancy('tap-rz-') as before \gset

select matches(pg_temp.error_of($$select actae._reconcile_tenant_names()$$)::jsonb ->> 'message',
    'tenants of its own \(tap_rz_a\)', 'refused, naming the tenant');
select is(pg_temp.tenancy('tap-rz-'), :'before', 'nothing is changed');

delete from actae.channels where channel_id = 'tap-rz-old';
select is(pg_temp.error_of($$select actae._reconcile_tenant_names()$$), null,
    'without the older channel it passes');

select * from finish();
rollback;
