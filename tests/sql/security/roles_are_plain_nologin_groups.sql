-- Actae's four roles are plain NOLOGIN groups (migrations 0001, 0002): no superuser,
-- createrole, createdb, replication or bypassrls power, and they inherit. Among them the
-- only memberships are actae_operator in actae_agent and in actae_auditor, without admin
-- option, and no role at all is a member of actae_owner. On schema actae, PUBLIC holds
-- nothing and actae_agent, actae_auditor and actae_operator only USAGE, without grant
-- option: none of them can create an object there. No default privilege grants anything
-- to PUBLIC or to those three roles.
begin;
\ir ../helpers.psql
select plan(6);

select results_eq(
    $$select rolname::text collate "C", rolcanlogin, rolsuper, rolcreaterole, rolcreatedb,
          rolreplication, rolbypassrls, rolinherit
      from pg_roles
      where rolname in ('actae_owner', 'actae_agent', 'actae_auditor', 'actae_operator')
      order by 1$$,
    $$values ('actae_agent'::text collate "C", false, false, false, false, false, false, true),
          ('actae_auditor', false, false, false, false, false, false, true),
          ('actae_operator', false, false, false, false, false, false, true),
          ('actae_owner', false, false, false, false, false, false, true)$$,
    'the four roles are NOLOGIN groups without special powers, and inherit');
select results_eq(
    $$select m.member::regrole::text collate "C", m.roleid::regrole::text collate "C",
          m.admin_option
      from pg_auth_members as m
      where m.member in ('actae_owner'::regrole, 'actae_agent'::regrole,
          'actae_auditor'::regrole, 'actae_operator'::regrole)
      order by 1, 2$$,
    $$values ('actae_operator'::text collate "C", 'actae_agent'::text collate "C", false),
          ('actae_operator', 'actae_auditor', false)$$,
    'the only memberships of Actae''s roles: actae_operator in actae_agent and actae_auditor');
select is(
    (select string_agg(m.member::regrole::text, ', ') from pg_auth_members as m
     where m.roleid = 'actae_owner'::regrole),
    null, 'no role is a member of actae_owner');
select is(
    (select string_agg(format('%s %s%s', coalesce(nullif(a.grantee, 0)::regrole::text,
        'PUBLIC'), a.privilege_type, case when a.is_grantable then ' (grantable)' end), ', '
        order by a.grantee, a.privilege_type)
     from pg_namespace as n
     cross join lateral aclexplode(n.nspacl) as a
     where n.nspname = 'actae'
       and a.grantee in (0, 'actae_agent'::regrole, 'actae_auditor'::regrole,
           'actae_operator'::regrole)),
    (select string_agg(format('%s USAGE', r::regrole), ', ' order by r::regrole::oid)
     from unnest(array['actae_agent', 'actae_auditor', 'actae_operator']) as r),
    'on schema actae PUBLIC holds nothing, the three roles USAGE only');
select is(
    (select string_agg(r, ', ') from unnest(array['actae_agent', 'actae_auditor',
        'actae_operator']) as r
     where has_schema_privilege(r, 'actae', 'create')),
    null, 'none of them can create objects in schema actae');
select is(
    (select string_agg(format('%s %s %s', d.defaclrole::regrole, d.defaclobjtype,
        coalesce(nullif(a.grantee, 0)::regrole::text, 'PUBLIC')), ', ')
     from pg_default_acl as d
     cross join lateral aclexplode(d.defaclacl) as a
     where a.grantee in (0, 'actae_agent'::regrole, 'actae_auditor'::regrole,
         'actae_operator'::regrole)),
    null, 'no default privilege grants anything to PUBLIC or Actae''s roles');

select * from finish();
rollback;
