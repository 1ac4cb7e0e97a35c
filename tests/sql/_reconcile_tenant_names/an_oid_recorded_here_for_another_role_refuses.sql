-- actae._reconcile_tenant_names after a restore into a database that records one of its own
-- tenants under an oid the backup recorded for another role: the channels under that oid are
-- some of each one's and nothing tells which, so it refuses (55000, restore into a new
-- database), also when that other role's row is set to '' (dropped on purpose) and no
-- other row moves.
begin;
\ir ../helpers.psql
\ir ../tenant_names_helpers.psql
select plan(3);

select pg_temp.two_tenants('tap_ro_x', 'tap_ro_y', 'tap_ro_xl', 'tap_ro_yl');
set local session authorization tap_ro_xl;
select actae.create_channel('tap-ro-x-here');
reset session authorization;
-- The backup recorded tap_ro_x's oid for tap_ro_gone, with a channel.
insert into actae.tenant_names (tenant, name, cluster)
values ('tap_ro_x'::regrole, 'tap_ro_gone', 1);
insert into actae.channels (channel_id, tenant) values ('tap-ro-backup', 'tap_ro_x'::regrole);

select matches(pg_temp.error_of($$select actae._reconcile_tenant_names()$$)::jsonb ->> 'message',
    'tenants of its own \(\d+ \(tap_ro_x here, tap_ro_gone in the other cluster\)',
    'refused, naming the oid and both roles');
update actae.tenant_names set name = '' where name = 'tap_ro_gone';
select pg_temp.tenancy('tap-ro-') as before \gset
select matches(pg_temp.error_of($$select actae._reconcile_tenant_names()$$)::jsonb ->> 'message',
    'restore into a new database', 'also once that role''s row is set to no role');
select is(pg_temp.tenancy('tap-ro-'), :'before', 'nothing is changed');

select * from finish();
rollback;
