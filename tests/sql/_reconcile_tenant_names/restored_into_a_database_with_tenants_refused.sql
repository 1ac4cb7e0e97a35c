-- actae._reconcile_tenant_names after a restore into a database that has tenants of its own
-- (rows of this cluster with channels under them beside the backup's rows of another): the
-- rows under an oid cannot be told apart as this database's or the backup's (and a restore
-- over existing rows may have lost some of a table keyed by tenant), so it refuses (55000)
-- naming this database's tenants and saying to restore into a new database; nothing is
-- changed. So it does when the only such tenant made its first channel after the restore,
-- under an oid the backup recorded for another role (actae._remember_tenant records it
-- for this cluster).
begin;
\ir ../helpers.psql
\ir ../tenant_names_helpers.psql
select plan(6);

select pg_temp.two_tenants('tap_rx_a', 'tap_rx_b', 'tap_rx_al', 'tap_rx_bl');
set local session authorization tap_rx_al;
select actae.create_channel('tap-rx-a-here');
reset session authorization;
-- The backup's rows: tap_rx_a under another oid, with a channel.
insert into actae.tenant_names (tenant, name, cluster) values (4000000050, 'tap_rx_a', 1);
insert into actae.channels (channel_id, tenant) values ('tap-rx-a-backup', 4000000050);
select pg_temp.tenancy('tap-rx-') as before \gset

select pg_temp.error_of($$select actae._reconcile_tenant_names()$$) as err \gset
select is(:'err'::jsonb ->> 'sqlstate', '55000', 'a database with tenants of its own: 55000');
select matches(:'err'::jsonb ->> 'message', 'tenants of its own \(.*tap_rx_a',
    'naming them');
select matches(:'err'::jsonb ->> 'message', 'restore into a new database', 'and what to do');
select is(pg_temp.tenancy('tap-rx-'), :'before', 'nothing is changed');

-- Without tap_rx_a's own channel, but tap_rx_b's first one made before the migrate, under
-- an oid the backup recorded for tap_rx_a.
delete from actae.channels where channel_id = 'tap-rx-a-here';
delete from actae.tenant_names where cluster = pg_temp.this_cluster() and name like 'tap\_rx\_%';
update actae.tenant_names set tenant = 'tap_rx_b'::regrole where tenant = 4000000050;
update actae.channels set tenant = 'tap_rx_b'::regrole where channel_id = 'tap-rx-a-backup';
set local session authorization tap_rx_bl;
select actae.create_channel('tap-rx-b-new');
reset session authorization;
select is((select count(*) from actae.tenant_names as t
        where t.tenant = 'tap_rx_b'::regrole and t.cluster = pg_temp.this_cluster()),
    1::bigint, 'the new channel''s tenant is recorded for this cluster');
select matches(pg_temp.error_of($$select actae._reconcile_tenant_names()$$)::jsonb ->> 'message',
    'tenants of its own \(.*tap_rx_b',
    'and the migrate refuses rather than hand its channel to the backup''s tenant');

select * from finish();
rollback;
