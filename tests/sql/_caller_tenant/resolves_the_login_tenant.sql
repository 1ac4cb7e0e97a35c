-- actae._caller_tenants / actae._caller_tenant: a login granted a NOLOGIN tenant role (one
-- granted actae_agent) belongs to that tenant; a login granted actae_agent directly, or a
-- superuser, is its own tenant; a login in no tenant (a global auditor, or an operator:
-- actae_operator is no tenant) has none and creates channels as itself; a login in two
-- tenants cannot create a channel (AC400 naming both).
begin;
\ir ../helpers.psql
select plan(9);

create role t_ten_a nologin;
create role t_ten_b nologin;
grant actae_agent to t_ten_a, t_ten_b;
create role t_login_a login;
create role t_login_self login;
create role t_login_both login;
create role t_login_aud login;
create role t_login_op login;
grant t_ten_a to t_login_a;
grant actae_agent to t_login_self;
grant t_ten_a, t_ten_b to t_login_both;
grant actae_auditor to t_login_aud;
grant actae_operator to t_login_op;
grant execute on function pg_temp.error_of(text) to public;
-- Internal helpers, callable here by the test's logins only (rolled back with the test).
grant execute on function actae._caller_tenants(), actae._caller_tenant() to public;

create temp table seen (login text, tenants text, tenant text);
grant insert on seen to public;

set local session authorization t_login_a;
insert into seen select session_user, (select string_agg(t::regrole::text, ',')
    from unnest(actae._caller_tenants()) as t), actae._caller_tenant()::regrole::text;
set local session authorization t_login_self;
insert into seen select session_user, (select string_agg(t::regrole::text, ',')
    from unnest(actae._caller_tenants()) as t), actae._caller_tenant()::regrole::text;
set local session authorization t_login_aud;
insert into seen select session_user, (select string_agg(t::regrole::text, ',')
    from unnest(actae._caller_tenants()) as t), actae._caller_tenant()::regrole::text;
set local session authorization t_login_op;
insert into seen select session_user, (select string_agg(t::regrole::text, ',')
    from unnest(actae._caller_tenants()) as t), actae._caller_tenant()::regrole::text;
set local session authorization t_login_both;
insert into seen select session_user, (select string_agg(t::regrole::text, ',')
    from unnest(actae._caller_tenants()) as t),
    pg_temp.error_of('select actae.create_channel(''t-both-tenants'')')::text;
reset session authorization;

select is((select tenant from seen where login = 't_login_a'), 't_ten_a',
    'a login granted a tenant role belongs to it');
select is((select tenant from seen where login = 't_login_self'), 't_login_self',
    'a login granted actae_agent directly is its own tenant');
select is((select tenants from seen where login = 't_login_aud'), null,
    'a global auditor belongs to no tenant');
select is((select tenant from seen where login = 't_login_aud'), 't_login_aud',
    '... and would create channels as itself');
select is((select tenants from seen where login = 't_login_op'), null,
    'actae_operator is not a tenant: an operator login belongs to none');
select is((select tenants from seen where login = 't_login_both'), 't_ten_a,t_ten_b',
    'a login in two tenants belongs to both');
select is((select tenant::jsonb ->> 'sqlstate' from seen where login = 't_login_both'), 'AC400',
    '... and cannot create a channel (create_channel): AC400');
select is((select tenant::jsonb -> 'detail' -> 'tenants' from seen where login = 't_login_both'),
    '["t_ten_a", "t_ten_b"]'::jsonb, '... whose DETAIL names both tenants');
select is(actae._caller_tenant(), (select oid from pg_roles where rolname = session_user),
    'a superuser is its own tenant');

select * from finish();
rollback;
