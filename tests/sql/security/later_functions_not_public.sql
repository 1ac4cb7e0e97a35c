-- A function added to schema actae after migrate, by actae_owner or by the role that ran
-- migrate, is not executable by PUBLIC: the global default privileges of both roles (set by
-- migration 0012) drop PUBLIC's EXECUTE. 0001's `... in schema actae revoke ... from public`
-- alone leaves it (per-schema defaults only add to the global ones).
begin;
\ir ../helpers.psql
select plan(5);

select ok(
    exists (select from pg_default_acl as d
            where d.defaclrole = 'actae_owner'::regrole and d.defaclnamespace = 0
              and d.defaclobjtype = 'f'),
    'actae_owner has global default privileges for functions');
select ok(
    (select v.version from actae.schema_migrations as v where v.version = 12) is not null
    and exists (select from pg_default_acl as d
                join actae.schema_migrations as m on m.version = 12
                where d.defaclnamespace = 0 and d.defaclobjtype = 'f'
                  and d.defaclrole <> 'actae_owner'::regrole),
    'the migrating role has global default privileges for functions');

-- A function created now by the migrating role (the suite connects as it).
create function actae.tap_later_by_migrator() returns int language sql as 'select 1';
-- And one created by actae_owner.
grant create on schema actae to actae_owner;
set local role actae_owner;
create function actae.tap_later_by_owner() returns int language sql as 'select 2';
reset role;

select is(
    (select string_agg(p.proname, ', ' order by p.proname) from pg_proc as p
     cross join lateral aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) as a
     where p.pronamespace = 'actae'::regnamespace and a.grantee = 0
       and a.privilege_type = 'EXECUTE'),
    null, 'no function in actae, old or new, grants EXECUTE to PUBLIC');

create role tap_stranger;
grant usage on schema actae to tap_stranger;
set local role tap_stranger;
select throws_ok($$select actae.tap_later_by_migrator()$$, '42501', null,
    'a fresh role cannot execute a function the migrator adds later');
select throws_ok($$select actae.tap_later_by_owner()$$, '42501', null,
    'a fresh role cannot execute a function actae_owner adds later');
reset role;

select * from finish();
rollback;
