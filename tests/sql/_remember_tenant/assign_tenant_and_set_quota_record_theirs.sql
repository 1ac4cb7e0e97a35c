-- actae._remember_tenant from the operator's functions: assign_tenant records the name of
-- the tenant a channel is moved to, set_quota the name of a tenant given limits; removing
-- a tenant's limits (every limit null) stores no oid and records nothing.
begin;
\ir ../helpers.psql
select plan(3);

select pg_temp.two_tenants('tap_ro_a', 'tap_ro_b', 'tap_ro_al', 'tap_ro_bl');
create role tap_ro_c nologin;
grant actae_agent to tap_ro_c;

select actae.create_channel('tap-ro-moving');
select actae.assign_tenant('tap-ro-moving', 'tap_ro_a');
select actae.set_quota('tap_ro_b', p_max_channels => 5);
select actae.set_quota('tap_ro_c');

select is((select t.name from actae.tenant_names as t where t.tenant = 'tap_ro_a'::regrole),
    'tap_ro_a', 'assign_tenant records the new tenant');
select is((select t.name from actae.tenant_names as t where t.tenant = 'tap_ro_b'::regrole),
    'tap_ro_b', 'set_quota records the tenant given limits');
select is((select count(*) from actae.tenant_names as t where t.tenant = 'tap_ro_c'::regrole),
    0::bigint, 'removing limits records nothing');

select * from finish();
rollback;
