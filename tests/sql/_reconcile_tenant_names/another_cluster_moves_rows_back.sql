-- actae._reconcile_tenant_names after a restore into another cluster (registry rows that name
-- another cluster, beside this cluster's own, as in a database migrated before the restore):
-- every channel, execution, quota and registry row goes back onto the role of its recorded
-- name, also when two tenants' oids are swapped (A's rows carry B's oid and the reverse) or
-- chained (C's rows carry D's oid, D's an oid that names no role here); a stored oid no
-- registry row accounts for belongs to no role (0). Each tenant's login then sees exactly
-- its own channels, and every registry row is this cluster's.
begin;
\ir ../helpers.psql
\ir ../tenant_names_helpers.psql
select plan(6);

select pg_temp.two_tenants('tap_rb_a', 'tap_rb_b', 'tap_rb_al', 'tap_rb_bl');
select pg_temp.two_tenants('tap_rb_c', 'tap_rb_d', 'tap_rb_cl', 'tap_rb_dl');
create temp table seen (who text, channel_id text);
grant insert on seen to public;
set local session authorization tap_rb_al;
select actae.claim_execution('tap-rb-a', 'k', 't', '{}');
set local session authorization tap_rb_bl;
select actae.claim_execution('tap-rb-b', 'k', 't', '{}');
set local session authorization tap_rb_cl;
select actae.claim_execution('tap-rb-c', 'k', 't', '{}');
set local session authorization tap_rb_dl;
select actae.claim_execution('tap-rb-d', 'k', 't', '{}');
reset session authorization;
select actae.set_quota('tap_rb_a', p_max_channels => 1);
select actae.set_quota('tap_rb_b', p_max_channels => 2);
select actae.set_quota('tap_rb_d', p_max_channels => 4);
-- A channel whose tenant oid is in no registry row (inserted by hand).
insert into actae.channels (channel_id, tenant) values ('tap-rb-stray', 4000000123);
select pg_temp.tenancy('tap-rb-') as truth \gset

set local client_min_messages = warning;
select pg_temp.as_if_restored(
    array['tap_rb_a'::regrole, 'tap_rb_b'::regrole, 'tap_rb_c'::regrole, 'tap_rb_d'::regrole],
    array['tap_rb_b'::regrole, 'tap_rb_a'::regrole, 'tap_rb_d'::regrole, 4000000000]::oid []);
select isnt(pg_temp.tenancy('tap-rb-'), :'truth', 'the restore moved the rows (setup)');

select actae._reconcile_tenant_names();

select is(pg_temp.tenancy('tap-rb-'), replace(:'truth', 'channel:tap-rb-stray:4000000123',
    'channel:tap-rb-stray:-'),
    'every channel, execution, quota and name is back on its role');
select is((select c.tenant from actae.channels as c where c.channel_id = 'tap-rb-stray'),
    0::oid, 'a tenant oid not in the registry names no role: 0');
select is((select count(*) from actae.tenant_names as t where t.cluster <> pg_temp.this_cluster()),
    0::bigint, 'every registry row is this cluster''s');

set local session authorization tap_rb_al;
insert into seen select 'a', channel_id from actae.list_channels(p_max_rows => 1000);
set local session authorization tap_rb_dl;
insert into seen select 'd', channel_id from actae.list_channels(p_max_rows => 1000);
reset session authorization;
select set_eq($$select channel_id from seen where who = 'a'$$, array['tap-rb-a'],
    'a swapped tenant''s login lists its own channel only');
select set_eq($$select channel_id from seen where who = 'd'$$, array['tap-rb-d'],
    'so does a chained one''s');

select * from finish();
rollback;
