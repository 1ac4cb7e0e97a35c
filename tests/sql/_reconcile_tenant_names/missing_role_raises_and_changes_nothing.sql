-- actae._reconcile_tenant_names after a restore into another cluster where recorded tenants
-- with channels have no role of their name: 55000, the message naming every one of them and
-- saying what to do (restore the roles), DETAIL listing them; nothing is remapped, not even
-- the tenants that could be, and the registry is unchanged.
begin;
\ir ../helpers.psql
\ir ../tenant_names_helpers.psql
select plan(6);

select pg_temp.two_tenants('tap_rm_a', 'tap_rm_b', 'tap_rm_al', 'tap_rm_bl');
set local session authorization tap_rm_al;
select actae.claim_execution('tap-rm-a', 'k', 't', '{}');
set local session authorization tap_rm_bl;
select actae.create_channel('tap-rm-b');
reset session authorization;
insert into actae.tenant_names
values (4000000001, 'tap_rm_gone', 1), (4000000002, 'tap_rm_lost', 1);
insert into actae.channels (channel_id, tenant)
values ('tap-rm-gone', 4000000001), ('tap-rm-lost', 4000000002);
select pg_temp.as_if_restored(array['tap_rm_a'::regrole, 'tap_rm_b'::regrole]::oid [],
    array['tap_rm_b'::regrole, 'tap_rm_a'::regrole]::oid []);
select pg_temp.tenancy('tap-rm-') as before,
    (select string_agg(t::text, ',' order by t::text) from actae.tenant_names as t) as names \gset

select pg_temp.error_of($$select actae._reconcile_tenant_names()$$) as err \gset
select is(:'err'::jsonb ->> 'sqlstate', '55000', 'a recorded tenant without a role: 55000');
select matches(:'err'::jsonb ->> 'message', 'tap_rm_gone, tap_rm_lost',
    'the message names every missing tenant');
select matches(:'err'::jsonb ->> 'message', 'restore the roles first \(pg_dumpall --roles-only',
    'and says what to do');
select is(:'err'::jsonb -> 'detail' -> 'missing', '["tap_rm_gone", "tap_rm_lost"]'::jsonb,
    'DETAIL lists them');
select is(pg_temp.tenancy('tap-rm-'), :'before', 'nothing is remapped');
select is((select string_agg(t::text, ',' order by t::text) from actae.tenant_names as t),
    :'names', 'the registry is unchanged');

select * from finish();
rollback;
