-- actae._reconcile_tenant_names when rows of two other clusters record one oid for two roles
-- (a restore that was backed up again before its migrate, then restored here): the rows
-- under that oid are some of each one's, so it refuses (55000) naming both, and nothing is
-- changed, where it moved them all to the first role's name.
begin;
\ir ../helpers.psql
\ir ../tenant_names_helpers.psql
select plan(3);

select pg_temp.two_tenants('tap_r2_a', 'tap_r2_b', 'tap_r2_al', 'tap_r2_bl');
insert into actae.tenant_names (tenant, name, cluster)
values (4000000070, 'tap_r2_a', 1), (4000000070, 'tap_r2_b', 2);
insert into actae.channels (channel_id, tenant)
values ('tap-r2-one', 4000000070), ('tap-r2-two', 4000000070);
select pg_temp.tenancy('tap-r2-') as before \gset

select pg_temp.error_of($$select actae._reconcile_tenant_names()$$) as err \gset
select is(:'err'::jsonb ->> 'sqlstate', '55000', 'one oid, two roles elsewhere: 55000');
select matches(:'err'::jsonb ->> 'message', '4000000070 \(tap_r2_a in another cluster\).*'
    || '4000000070 \(tap_r2_b in another cluster\)', 'naming both');
select is(pg_temp.tenancy('tap-r2-'), :'before', 'nothing is changed');

select * from finish();
rollback;
