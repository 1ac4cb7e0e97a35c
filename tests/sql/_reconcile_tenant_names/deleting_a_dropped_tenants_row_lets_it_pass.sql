-- actae._reconcile_tenant_names after a restore into another cluster, once the registry row
-- of a tenant dropped on purpose is deleted: the other tenants are remapped, and the dropped
-- tenant's channels keep their old oid (in no registry row, they are left alone).
begin;
\ir ../helpers.psql
\ir ../tenant_names_helpers.psql
select plan(4);

select pg_temp.two_tenants('tap_rd_a', 'tap_rd_b', 'tap_rd_al', 'tap_rd_bl');
set local session authorization tap_rd_al;
select actae.claim_execution('tap-rd-a', 'k', 't', '{}');
set local session authorization tap_rd_bl;
select actae.create_channel('tap-rd-b');
reset session authorization;
insert into actae.tenant_names values (4000000001, 'tap_rd_gone');
insert into actae.channels (channel_id, tenant) values ('tap-rd-gone', 4000000001);
select pg_temp.tenancy('tap-rd-') as truth \gset
set local client_min_messages = warning;
select pg_temp.as_if_restored(array['tap_rd_a'::regrole, 'tap_rd_b'::regrole]::oid [],
    array['tap_rd_b'::regrole, 'tap_rd_a'::regrole]::oid []);
select isnt(pg_temp.error_of($$select actae._reconcile_tenant_names()$$), null,
    'refused while the dropped tenant is in the registry');

delete from actae.tenant_names where name = 'tap_rd_gone';
select is(pg_temp.error_of($$select actae._reconcile_tenant_names()$$), null,
    'passes once its row is deleted');
select is(pg_temp.tenancy('tap-rd-'), replace(:'truth', ' name:tap_rd_gone:4000000001', ''),
    'the other tenants are back on their roles');
select is((select c.tenant from actae.channels as c where c.channel_id = 'tap-rd-gone'),
    4000000001::oid, 'the dropped tenant''s channel keeps its oid');

select * from finish();
rollback;
