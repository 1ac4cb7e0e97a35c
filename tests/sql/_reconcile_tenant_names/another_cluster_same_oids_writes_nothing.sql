-- actae._reconcile_tenant_names after pg_upgrade (another cluster, the same role oids): every
-- recorded name still names the recorded oid, so no row is written; this cluster is
-- recorded.
begin;
\ir ../helpers.psql
\ir ../tenant_names_helpers.psql
select plan(3);

select pg_temp.two_tenants('tap_ru_a', 'tap_ru_b', 'tap_ru_al', 'tap_ru_bl');
set local session authorization tap_ru_al;
select actae.claim_execution('tap-ru-a', 'k', 't', '{}');
reset session authorization;
select actae.set_quota('tap_ru_a', p_max_channels => 1);
update actae.tenant_names_cluster set system_identifier = 1;
select pg_temp.ledger_digest() as ledger,
    (select string_agg(ctid::text, ',' order by ctid) from actae.channels) as channels,
    (select string_agg(ctid::text, ',' order by ctid) from actae.quotas) as quotas,
    (select string_agg(ctid::text, ',' order by ctid) from actae.tenant_names) as names \gset

select actae._reconcile_tenant_names();

select is(pg_temp.ledger_digest(), :'ledger', 'no ledger row changes');
select is(
    concat_ws('/', (select string_agg(ctid::text, ',' order by ctid) from actae.channels),
        (select string_agg(ctid::text, ',' order by ctid) from actae.quotas),
        (select string_agg(ctid::text, ',' order by ctid) from actae.tenant_names)),
    concat_ws('/', :'channels', :'quotas', :'names'),
    'no channel, quota or registry row is written');
select is((select t.system_identifier from actae.tenant_names_cluster as t),
    pg_temp.this_cluster(), 'this cluster is recorded');

select * from finish();
rollback;
