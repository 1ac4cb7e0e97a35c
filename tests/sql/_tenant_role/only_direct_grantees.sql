-- actae._tenant_role: the oid of a role granted actae_agent directly (a tenant role, or a
-- login that is its own tenant); null for a tenant's login, a role without actae_agent,
-- actae_agent itself, actae_operator and an unknown name.
begin;
\ir ../helpers.psql
select plan(6);

create role tap_tr_tenant nologin;
grant actae_agent to tap_tr_tenant;
create role tap_tr_login login;
grant tap_tr_tenant to tap_tr_login;
create role tap_tr_self login;
grant actae_agent to tap_tr_self;

select is(actae._tenant_role('tap_tr_tenant'), 'tap_tr_tenant'::regrole::oid, 'a tenant role');
select is(actae._tenant_role('tap_tr_self'), 'tap_tr_self'::regrole::oid,
    'a login granted actae_agent directly is its own tenant');
select is(actae._tenant_role('tap_tr_login'), null, 'a tenant''s login is no tenant');
select is(actae._tenant_role('actae_agent'), null, 'actae_agent is no tenant');
select is(actae._tenant_role('actae_operator'), null, 'actae_operator is no tenant');
select is(actae._tenant_role('tap_tr_no_such_role'), null, 'an unknown name is no tenant');

select * from finish();
rollback;
