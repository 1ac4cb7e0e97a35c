-- actae._reconcile_tenant_names after a restore into another cluster with a tenant whose role
-- is not here: a row with nothing stored under it (a tenant dropped in the source) is
-- forgotten; one with channels refuses the migrate until its row's name is set to '' (a
-- tenant dropped on purpose), and its channels then belong to no role (0), the others being
-- remapped. (A row deleted instead leaves its channels under an oid no row accounts for:
-- they go to 0 as well.)
begin;
\ir ../helpers.psql
\ir ../tenant_names_helpers.psql
select plan(5);

select pg_temp.two_tenants('tap_rd_a', 'tap_rd_b', 'tap_rd_al', 'tap_rd_bl');
set local session authorization tap_rd_al;
select actae.claim_execution('tap-rd-a', 'k', 't', '{}');
set local session authorization tap_rd_bl;
select actae.create_channel('tap-rd-b');
reset session authorization;
insert into actae.tenant_names values (4000000001, 'tap_rd_gone', 1),
    (4000000002, 'tap_rd_empty', 1);
insert into actae.channels (channel_id, tenant) values ('tap-rd-gone', 4000000001);
select pg_temp.tenancy('tap-rd-') as truth \gset
set local client_min_messages = warning;
select pg_temp.as_if_restored(array['tap_rd_a'::regrole, 'tap_rd_b'::regrole]::oid [],
    array['tap_rd_b'::regrole, 'tap_rd_a'::regrole]::oid []);
select isnt(pg_temp.error_of($$select actae._reconcile_tenant_names()$$), null,
    'refused while the dropped tenant is in the registry');

update actae.tenant_names set name = '' where name = 'tap_rd_gone';
select is(pg_temp.error_of($$select actae._reconcile_tenant_names()$$), null,
    'passes once its row''s name is set to the empty string');
select is(pg_temp.tenancy('tap-rd-'),
    replace(replace(replace(:'truth', ' name:tap_rd_empty:4000000002', ''),
        ' name:tap_rd_gone:4000000001', ''), 'channel:tap-rd-gone:4000000001',
        'channel:tap-rd-gone:-'),
    'the other tenants are back on their roles');
select is((select c.tenant from actae.channels as c where c.channel_id = 'tap-rd-gone'),
    0::oid, 'the dropped tenant''s channel belongs to no role');
select is((select count(*) from actae.tenant_names where name = 'tap_rd_empty'), 0::bigint,
    'a row with nothing stored under it is forgotten');

select * from finish();
rollback;
