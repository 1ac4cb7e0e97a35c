-- actae._remember_tenant at channel creation: a channel created by a tenant's login records
-- the tenant role's name (not the login's) in actae.tenant_names, whichever function
-- creates it (create_channel, a claim of a new channel, fork_channel); every new channel's
-- tenant oid is then in the registry.
begin;
\ir ../helpers.psql
select plan(4);

select pg_temp.two_tenants('tap_rn_a', 'tap_rn_b', 'tap_rn_al', 'tap_rn_bl');

set local session authorization tap_rn_al;
select actae.create_channel('tap-rn-a');
set local session authorization tap_rn_bl;
select actae.claim_execution('tap-rn-b', 'k', 't', '{}');
select actae.record_event('tap-rn-b', 'step', '{}');
select actae.fork_channel('tap-rn-b', 1, 'tap-rn-b-fork');
reset session authorization;

select is((select t.name from actae.tenant_names as t where t.tenant = 'tap_rn_a'::regrole),
    'tap_rn_a', 'create_channel records the tenant of the login that creates the channel');
select is((select t.name from actae.tenant_names as t where t.tenant = 'tap_rn_b'::regrole),
    'tap_rn_b', 'so does a claim that creates its channel');
select is((select count(*) from actae.tenant_names as t where t.name like 'tap\_rn\_%l'),
    0::bigint, 'the logins are not recorded (they are no channel''s tenant)');
select is(
    (select count(*) from actae.channels as c
        where c.channel_id like 'tap-rn-%'
            and not exists (select from actae.tenant_names as t where t.tenant = c.tenant)),
    0::bigint, 'every new channel''s tenant, the fork''s too, is in the registry');

select * from finish();
rollback;
