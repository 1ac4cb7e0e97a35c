-- actae._global_reader: a login reads every tenant's channels only when it is in no tenant
-- and holds no agent rights but an operator's: a global auditor or operator is one; a login
-- in a tenant (directly or through a group), one granted actae_agent directly (its own
-- tenant) and a superuser (its own tenant too, reading everything by membership) are not.
-- actae._may_read and actae._readable both decide global reads with it.
begin;
\ir ../helpers.psql
select plan(6);

create role t_gr_ten nologin;
grant actae_agent to t_gr_ten;
create role t_gr_group nologin;
grant t_gr_ten to t_gr_group;
create role t_gr_in login;
grant t_gr_group to t_gr_in;
create role t_gr_own login;
grant actae_agent to t_gr_own;
create role t_gr_aud login;
grant actae_auditor to t_gr_aud;
create role t_gr_op login;
grant actae_operator to t_gr_op;
grant execute on function actae._global_reader(), actae._caller_tenants(),
    actae._readable(), actae._member_of() to public;
create temp table seen (login text, global boolean, readable oid []);
grant insert on seen to public;

set local session authorization t_gr_aud;
insert into seen values ('aud', actae._global_reader(), actae._readable());
set local session authorization t_gr_op;
insert into seen values ('op', actae._global_reader(), actae._readable());
set local session authorization t_gr_in;
insert into seen values ('in', actae._global_reader(), actae._readable());
set local session authorization t_gr_own;
insert into seen values ('own', actae._global_reader(), actae._readable());
reset session authorization;
insert into seen values ('super', actae._global_reader(), null);

select is((select global from seen where login = 'aud'), true, 'a global auditor is one');
select is((select global from seen where login = 'op'), true, 'a global operator is one');
select is((select global from seen where login = 'in'), false,
    'a login in a tenant through a group is not');
select is((select global from seen where login = 'own'), false,
    'a login granted actae_agent directly (its own tenant) is not');
select is((select global from seen where login = 'super'), false,
    'a superuser is not (it reads everything as a member of every role)');
select ok((select readable is null from seen where login = 'aud')
    and (select readable is not null from seen where login = 'in'),
    '_readable is null (everything) exactly for a global reader');

select * from finish();
rollback;
