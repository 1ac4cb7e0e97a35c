-- On every table and view of schema actae owned by actae_owner, PUBLIC, actae_agent,
-- actae_auditor and actae_operator hold exactly what sql/90_grants.sql ships: actae_auditor
-- SELECT on each relation except topic_secret, and on executions and runs SELECT on every
-- column but claim_token (column grants, not the relation); nothing else, nothing to
-- PUBLIC, actae_agent or actae_operator directly, nothing with grant option, every entry
-- granted by actae_owner. So neither the auditor nor the operator (an auditor and an agent)
-- can write any relation, views included, or pass a privilege on.
begin;
\ir ../helpers.psql
select plan(7);

create temp table held as
select c.relname::text as relname, null::text as attname, a.grantee, a.grantor,
    a.privilege_type, a.is_grantable
from pg_class as c
cross join lateral aclexplode(c.relacl) as a
where c.relnamespace = 'actae'::regnamespace and c.relkind in ('r', 'p', 'v', 'm')
    and c.relowner = 'actae_owner'::regrole
union all
select c.relname::text, t.attname::text, a.grantee, a.grantor, a.privilege_type, a.is_grantable
from pg_class as c
join pg_attribute as t on t.attrelid = c.oid and t.attnum > 0 and not t.attisdropped
cross join lateral aclexplode(t.attacl) as a
where c.relnamespace = 'actae'::regnamespace and c.relkind in ('r', 'p', 'v', 'm')
    and c.relowner = 'actae_owner'::regrole;
delete from held
where grantee not in (0, 'actae_agent'::regrole, 'actae_auditor'::regrole,
    'actae_operator'::regrole);

select cmp_ok((select count(distinct relname) from held), '>=', 15::bigint,
    'there are relations to check');
select is(
    (select string_agg(distinct relname, ', ') from held where grantee <> 'actae_auditor'::regrole),
    null, 'PUBLIC, actae_agent and actae_operator hold nothing on any relation');
select is(
    (select string_agg(format('%s.%s %s', relname, coalesce(attname, '*'), privilege_type),
        ', ')
     from held where privilege_type <> 'SELECT'),
    null, 'the auditor holds nothing but SELECT, on no relation and no column');
select is(
    (select array_agg(c.relname::text order by c.relname) from pg_class as c
     where c.relnamespace = 'actae'::regnamespace and c.relkind in ('r', 'p', 'v', 'm')
       and c.relowner = 'actae_owner'::regrole
       and c.relname not in ('topic_secret', 'executions', 'runs')),
    (select array_agg(relname order by relname) from held
     where attname is null and privilege_type = 'SELECT'),
    'the auditor selects every relation but topic_secret, executions and runs');
select is(
    (select array_agg(format('%s.%s', c.relname, t.attname)
        order by format('%s.%s', c.relname, t.attname))
     from pg_class as c
     join pg_attribute as t on t.attrelid = c.oid and t.attnum > 0 and not t.attisdropped
     where c.relnamespace = 'actae'::regnamespace
       and c.relname in ('executions', 'runs') and t.attname <> 'claim_token'),
    (select array_agg(format('%s.%s', relname, attname)
        order by format('%s.%s', relname, attname)) from held
     where attname is not null and privilege_type = 'SELECT'),
    'and every column of executions and runs but claim_token, nothing more by column');
select is(
    (select string_agg(format('%s.%s %s %s by %s', relname, coalesce(attname, '*'),
        grantee::regrole, privilege_type, grantor::regrole), ', ')
     from held where is_grantable or grantor <> 'actae_owner'::regrole),
    null, 'every entry is actae_owner''s grant, without grant option');
select is(
    (select string_agg(format('%s %s', r.rolname, c.relname), ', ')
     from pg_class as c
     cross join (values ('actae_auditor'), ('actae_operator'), ('actae_agent')) as r (rolname)
     where c.relnamespace = 'actae'::regnamespace and c.relkind in ('r', 'p', 'v', 'm')
       and has_table_privilege(r.rolname, c.oid,
           'insert, update, delete, truncate, references, trigger')),
    null, 'no Actae role can write, truncate, reference or trigger any relation, views included');

select * from finish();
rollback;
