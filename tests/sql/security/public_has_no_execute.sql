-- EXECUTE is revoked from PUBLIC on every function in schema actae: no function keeps
-- the default ACL (which would mean PUBLIC may execute it), no ACL entry names PUBLIC,
-- and a fresh role that was granted nothing can execute nothing and read nothing.
begin;
\ir ../helpers.psql
select plan(5);

select is(
    (select string_agg(p.oid::regprocedure::text, ', ') from pg_proc as p
     where p.pronamespace = 'actae'::regnamespace and p.proacl is null),
    null, 'no function has the default ACL');
select is(
    (select string_agg(p.oid::regprocedure::text, ', ') from pg_proc as p
     cross join lateral aclexplode(p.proacl) as a
     where p.pronamespace = 'actae'::regnamespace and a.grantee = 0),
    null, 'no ACL entry grants anything to PUBLIC');

create role tap_stranger;
grant usage on schema actae to tap_stranger;
select is(
    (select string_agg(p.oid::regprocedure::text, ', ') from pg_proc as p
     where p.pronamespace = 'actae'::regnamespace
       and has_function_privilege('tap_stranger', p.oid, 'execute')),
    null, 'a fresh role can execute no actae function');
set local role tap_stranger;
select throws_ok($$select actae.claim_execution('tap-x', 'k', 't', '{}')$$, '42501', null,
    'a fresh role cannot claim');
select throws_ok($$select actae.get_channel('tap-x')$$, '42501', null,
    'a fresh role cannot read');
reset role;

select * from finish();
rollback;
