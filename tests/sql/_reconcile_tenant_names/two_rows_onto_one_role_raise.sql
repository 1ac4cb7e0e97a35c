-- actae._reconcile_tenant_names after a restore into another cluster where two recorded
-- tenants would move to one role: tenant tap_rc_a renamed in the source (to tap_rc_a_old)
-- and a new tap_rc_a created, with no migrate between (the old row still says tap_rc_a).
-- Moving both onto tap_rc_a would hand it the old tenant's channels: 55000, naming the role
-- and both oids, nothing changed. Once the old row has its right name, the migrate passes
-- and each channel stays with its own tenant.
begin;
\ir ../helpers.psql
\ir ../tenant_names_helpers.psql
select plan(5);

select pg_temp.two_tenants('tap_rc_a', 'tap_rc_b', 'tap_rc_al', 'tap_rc_bl');
set local session authorization tap_rc_al;
select actae.create_channel('tap-rc-old');
reset session authorization;
select 'tap_rc_a'::regrole::oid as old_oid \gset
alter role tap_rc_a rename to tap_rc_a_old;
create role tap_rc_a;
grant actae_agent to tap_rc_a;
create role tap_rc_anl login;
grant tap_rc_a to tap_rc_anl;
set local session authorization tap_rc_anl;
select actae.create_channel('tap-rc-new');
reset session authorization;
update actae.tenant_names set cluster = 1 where name = 'tap_rc_a';
select pg_temp.tenancy('tap-rc-') as before \gset

select pg_temp.error_of($$select actae._reconcile_tenant_names()$$) as err \gset
select is(:'err'::jsonb ->> 'sqlstate', '55000', 'two recorded tenants onto one role: 55000');
select matches(:'err'::jsonb ->> 'message', 'tap_rc_a \(recorded oids \d+, \d+\)',
    'the message names the role and both oids');
select is(pg_temp.tenancy('tap-rc-'), :'before', 'nothing is changed');

update actae.tenant_names set name = 'tap_rc_a_old' where tenant = :old_oid;
select is(pg_temp.error_of($$select actae._reconcile_tenant_names()$$), null,
    'with the old row''s right name it passes');
select is(
    (select string_agg(c.channel_id || ':' || c.tenant::regrole::text, ' ' order by c.channel_id)
        from actae.channels as c where c.channel_id like 'tap-rc-%'),
    'tap-rc-new:tap_rc_a tap-rc-old:tap_rc_a_old', 'each channel stays with its own tenant');

select * from finish();
rollback;
