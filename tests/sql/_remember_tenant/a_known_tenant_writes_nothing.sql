-- actae._remember_tenant costs a known tenant no write: further channels of a tenant already
-- recorded leave its row as it is (no insert, no update). A channel that already exists is
-- not created, so using it records nothing, even when its tenant is missing from the
-- registry (only the creation path pays the probe).
begin;
\ir ../helpers.psql
select plan(4);

select pg_temp.two_tenants('tap_rk_a', 'tap_rk_b', 'tap_rk_al', 'tap_rk_bl');

set local session authorization tap_rk_al;
select actae.create_channel('tap-rk-a1');
reset session authorization;
select ctid::text as row_at from actae.tenant_names where tenant = 'tap_rk_a'::regrole \gset
select n_tup_ins + n_tup_upd + n_tup_del as writes from pg_stat_xact_user_tables
where relid = 'actae.tenant_names'::regclass \gset

set local session authorization tap_rk_al;
select actae.create_channel('tap-rk-a2');
select actae.claim_execution('tap-rk-a3', 'k', 't', '{}');
reset session authorization;

select is((select ctid::text from actae.tenant_names where tenant = 'tap_rk_a'::regrole),
    :'row_at', 'the known tenant''s row is untouched');
select is(
    (select n_tup_ins + n_tup_upd + n_tup_del from pg_stat_xact_user_tables
        where relid = 'actae.tenant_names'::regclass),
    :'writes'::bigint, 'two more channels of a known tenant write nothing to the registry');

set local session authorization tap_rk_bl;
select actae.create_channel('tap-rk-b');
reset session authorization;
delete from actae.tenant_names where tenant = 'tap_rk_b'::regrole;
set local session authorization tap_rk_bl;
select actae.create_channel('tap-rk-b');
select actae.claim_execution('tap-rk-b', 'k', 't', '{}');
select actae.record_event('tap-rk-b', 'step', '{}');
reset session authorization;
select is((select count(*) from actae.tenant_names where tenant = 'tap_rk_b'::regrole),
    0::bigint, 'writes to an existing channel do not record its tenant');
select is((select tenant from actae.channels where channel_id = 'tap-rk-b'),
    'tap_rk_b'::regrole::oid, 'the channel is still its tenant''s');

select * from finish();
rollback;
