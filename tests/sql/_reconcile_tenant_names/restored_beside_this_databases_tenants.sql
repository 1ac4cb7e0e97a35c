-- actae._reconcile_tenant_names after a restore into a database that was migrated before it,
-- with tenants of its own: the backup's registry rows load beside this database's (the key
-- is the oid and the cluster). A backup row of a role this database records under the same
-- oid and name is that role; one whose name is a role this database records under another
-- oid moves onto it, beside its channels; an oid recorded here for one role and in the
-- backup for another is refused (55000): the rows stored under it are some of each tenant's,
-- and nothing tells which.
begin;
\ir ../helpers.psql
\ir ../tenant_names_helpers.psql
select plan(5);

select pg_temp.two_tenants('tap_rx_a', 'tap_rx_b', 'tap_rx_al', 'tap_rx_bl');
set local session authorization tap_rx_al;
select actae.create_channel('tap-rx-a-here');
set local session authorization tap_rx_bl;
select actae.create_channel('tap-rx-b-here');
reset session authorization;
-- The backup's rows: tap_rx_a under another oid, with a channel; tap_rx_b under its own oid.
insert into actae.tenant_names (tenant, name, cluster)
values (4000000050, 'tap_rx_a', 1), ('tap_rx_b'::regrole, 'tap_rx_b', 1);
insert into actae.channels (channel_id, tenant) values ('tap-rx-a-backup', 4000000050);

set local client_min_messages = warning;
select is(pg_temp.error_of($$select actae._reconcile_tenant_names()$$), null,
    'a backup row of a role recorded here passes');
select is(
    (select string_agg(c.channel_id || ':' || c.tenant::regrole::text, ' ' order by c.channel_id)
        from actae.channels as c where c.channel_id like 'tap-rx-%'),
    'tap-rx-a-backup:tap_rx_a tap-rx-a-here:tap_rx_a tap-rx-b-here:tap_rx_b',
    'the backup''s channel joins its role''s channels; the others stay');
select is(
    (select string_agg(t.name || ':' || (t.tenant = t.name::regrole)::text, ' ' order by t.name)
        from actae.tenant_names as t
        where t.name like 'tap\_rx\_%' and t.cluster = pg_temp.this_cluster()),
    'tap_rx_a:true tap_rx_b:true', 'one row of this cluster per role');

-- Now a backup row whose oid this database records for another role.
insert into actae.tenant_names (tenant, name, cluster) values ('tap_rx_b'::regrole, 'tap_rx_z', 1);
select pg_temp.tenancy('tap-rx-') as before \gset
select pg_temp.error_of($$select actae._reconcile_tenant_names()$$) as err \gset
select matches(:'err'::jsonb ->> 'message', 'tap_rx_b here, tap_rx_z in the backup',
    'an oid of this database''s tenant recorded for another role in the backup: refused');
select is(pg_temp.tenancy('tap-rx-'), :'before', 'and nothing is changed');

select * from finish();
rollback;
