-- actae._reconcile_tenant_names in the cluster the oids were recorded in: the oids are right,
-- so nothing is remapped; a tenant role renamed since has its recorded name refreshed (so a
-- later restore finds it under its new name).
begin;
\ir ../helpers.psql
\ir ../tenant_names_helpers.psql
select plan(3);

select pg_temp.two_tenants('tap_rs_a', 'tap_rs_b', 'tap_rs_al', 'tap_rs_bl');
set local session authorization tap_rs_al;
select actae.claim_execution('tap-rs-a', 'k', 't', '{}');
set local session authorization tap_rs_bl;
select actae.create_channel('tap-rs-b');
reset session authorization;
select actae.set_quota('tap_rs_b', p_max_channels => 5);
select 'tap_rs_a'::regrole::oid as a_oid \gset
alter role tap_rs_a rename to tap_rs_a2;
select pg_temp.ledger_digest() as ledger,
    (select string_agg(q::text, ',' order by q::text) from actae.quotas as q) as quotas \gset

select actae._reconcile_tenant_names();

select is((select t.name from actae.tenant_names as t where t.tenant = :a_oid),
    'tap_rs_a2', 'the renamed tenant''s recorded name is its new one');
select is((select t.name from actae.tenant_names as t where t.tenant = 'tap_rs_b'::regrole),
    'tap_rs_b', 'the other tenant''s name is unchanged');
select is(pg_temp.ledger_digest() || (select string_agg(q::text, ',' order by q::text)
        from actae.quotas as q), :'ledger' || :'quotas',
    'no channel, execution or quota is rewritten');


select * from finish();
rollback;
