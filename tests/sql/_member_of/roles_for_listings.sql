-- actae._member_of / _readable: the caller's roles as one array, for listings that compare
-- a tenant column with a constant (the form Citus evaluates on its shards). A login in a
-- tenant gets its own role and its tenant's (and actae_agent's, for the channels written
-- before tenants); a global auditor gets every role for _member_of but null (read
-- everything) from _readable; a superuser gets null from both. actae._channel_tenant is a
-- channel's tenant, null for no channel, and _owns_channel / _may_read_channel agree with it.
begin;
\ir ../helpers.psql
select plan(10);

create role t_mo_ten nologin;
create role t_mo_other nologin;
grant actae_agent to t_mo_ten, t_mo_other;
create role t_mo_x login;
create role t_mo_aud login;
grant t_mo_ten to t_mo_x;
grant actae_auditor to t_mo_aud;
grant execute on function actae._member_of(), actae._readable(), actae._caller_tenants(),
    actae._channel_tenant(text), actae._owns(oid), actae._may_read(oid),
    actae._owns_channel(text), actae._may_read_channel(text), actae._global_reader() to public;
grant select on actae.channels to public;
insert into actae.channels (channel_id, tenant) values
    ('mo-ten', 't_mo_ten'::regrole), ('mo-other', 't_mo_other'::regrole);
create temp table seen (login text, what text, roles oid [], tenant oid, value boolean);
grant insert on seen to public;

set local session authorization t_mo_x;
insert into seen (login, what, roles) values
    ('x', 'member_of', actae._member_of()), ('x', 'readable', actae._readable());
insert into seen (login, what, tenant) values ('x', 'tenant', actae._channel_tenant('mo-ten'));
insert into seen (login, what, value) values
    ('x', 'owns other', actae._owns_channel('mo-other')),
    ('x', 'owns missing', actae._owns_channel('mo-missing'));
set local session authorization t_mo_aud;
insert into seen (login, what, roles) values
    ('aud', 'member_of', actae._member_of()), ('aud', 'readable', actae._readable());
insert into seen (login, what, value) values
    ('aud', 'reads missing', actae._may_read_channel('mo-missing'));
reset session authorization;

select ok(
    (select roles @> array['t_mo_x'::regrole, 't_mo_ten'::regrole, 'actae_agent'::regrole]::oid []
     from seen where login = 'x' and what = 'member_of'),
    'a tenant''s login: itself, its tenant and actae_agent');
select ok(
    not (select 't_mo_other'::regrole::oid = any(roles) from seen
         where login = 'x' and what = 'member_of'),
    'not another tenant');
select is(
    (select roles from seen where login = 'x' and what = 'readable'),
    (select roles from seen where login = 'x' and what = 'member_of'),
    'in a tenant, _readable is _member_of');
select ok(
    (select roles @> array['t_mo_aud'::regrole, 'actae_auditor'::regrole]::oid []
     from seen where login = 'aud' and what = 'member_of'),
    'a global auditor''s roles');
select is((select roles from seen where login = 'aud' and what = 'readable'), null,
    'a global auditor reads every channel: _readable is null');
select is(actae._member_of(), null, 'a superuser is a member of every role: null');
select is((select tenant from seen where what = 'tenant'), 't_mo_ten'::regrole::oid,
    '_channel_tenant: the channel''s tenant');
select is(actae._channel_tenant('mo-missing'), null, '_channel_tenant: null for no channel');
select ok(
    not (select value from seen where what = 'owns other')
    and not (select value from seen where what = 'owns missing'),
    '_owns_channel: false for another tenant''s channel and for no channel');
select ok(not (select value from seen where what = 'reads missing'),
    '_may_read_channel: false for no channel, even for a global auditor');

select * from finish();
rollback;
