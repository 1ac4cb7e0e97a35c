-- actae._reconcile_tenant_names after pg_upgrade (another cluster, the same role oids): every
-- recorded name still names the recorded oid, so no channel, execution or quota is written,
-- also for a tenant whose first channel was made after the upgrade (recorded for this
-- cluster: no one else's, since nothing moves); the registry rows become this cluster's. A
-- stored oid that no row accounts for (inserted by hand) could name anyone after a logical
-- restore that happens to keep every recorded oid: it goes to 0 (no role) all the same.
begin;
\ir ../helpers.psql
\ir ../tenant_names_helpers.psql
select plan(5);

select pg_temp.two_tenants('tap_ru_a', 'tap_ru_b', 'tap_ru_al', 'tap_ru_bl');
set local session authorization tap_ru_al;
select actae.claim_execution('tap-ru-a', 'k', 't', '{}');
reset session authorization;
select actae.set_quota('tap_ru_a', p_max_channels => 1);
update actae.tenant_names set cluster = 1 where name like 'tap\_ru\_%';
set local session authorization tap_ru_bl;
select actae.create_channel('tap-ru-b');
reset session authorization;
insert into actae.channels (channel_id, tenant) values ('tap-ru-stray', 'tap_ru_bl'::regrole);
select
    (select string_agg(ctid::text, ',' order by ctid) from actae.channels
        where channel_id like 'tap-ru-%' and channel_id <> 'tap-ru-stray') as channels,
    (select string_agg(ctid::text, ',' order by ctid) from actae.executions
        where channel_id like 'tap-ru-%') as executions,
    (select string_agg(ctid::text, ',' order by ctid) from actae.quotas
        where tenant = 'tap_ru_a'::regrole) as quotas \gset

select actae._reconcile_tenant_names();

select is(
    concat_ws('/',
        (select string_agg(ctid::text, ',' order by ctid) from actae.channels
            where channel_id like 'tap-ru-%' and channel_id <> 'tap-ru-stray'),
        (select string_agg(ctid::text, ',' order by ctid) from actae.executions
            where channel_id like 'tap-ru-%'),
        (select string_agg(ctid::text, ',' order by ctid) from actae.quotas
            where tenant = 'tap_ru_a'::regrole)),
    concat_ws('/', :'channels', :'executions', :'quotas'),
    'no channel, execution or quota row is written');
select is((select t.tenant from actae.tenant_names as t where t.name = 'tap_ru_a'),
    'tap_ru_a'::regrole::oid, 'the recorded oid stays');
select is((select count(*) from actae.tenant_names as t where t.cluster <> pg_temp.this_cluster()),
    0::bigint, 'every registry row is this cluster''s');
select is((select c.tenant from actae.channels as c where c.channel_id = 'tap-ru-b'),
    'tap_ru_b'::regrole::oid, 'the tenant made since keeps its channel');
select is((select c.tenant from actae.channels as c where c.channel_id = 'tap-ru-stray'),
    0::oid, 'a stored oid in no row goes to no role');

select * from finish();
rollback;
