-- Every API function is SECURITY DEFINER and pins search_path to pg_catalog, pg_temp;
-- private helpers are not definers and carry no SET clause, so they run with the pinned
-- search_path of the API function that calls them (nobody else may execute them); and
-- everything is owned by the NOLOGIN role actae_owner (not a superuser), so a definer
-- function runs with exactly the ledger's rights.
begin;
\ir ../helpers.psql
select plan(8);

select is(
    (select string_agg(p.oid::regprocedure::text, ', ') from pg_proc as p
     where p.pronamespace = 'actae'::regnamespace and p.proname not like '\_%'
       and not p.prosecdef),
    null, 'every API function is SECURITY DEFINER');
select is(
    (select string_agg(p.oid::regprocedure::text, ', ') from pg_proc as p
     where p.pronamespace = 'actae'::regnamespace and p.proname like '\_%' and p.prosecdef),
    null, 'no private helper is SECURITY DEFINER');
select is(
    (select string_agg(p.oid::regprocedure::text, ', ') from pg_proc as p
     where p.pronamespace = 'actae'::regnamespace and p.proname not like '\_%'
       and p.proconfig[1] is distinct from 'search_path=pg_catalog, pg_temp'),
    null, 'every API function pins search_path = pg_catalog, pg_temp');
select is(
    (select string_agg(p.oid::regprocedure::text, ', ') from pg_proc as p
     where p.pronamespace = 'actae'::regnamespace and p.proname like '\_%'
       and p.proconfig is not null),
    null, 'private helpers inherit the calling API function''s search_path');
select is(
    (select string_agg(p.oid::regprocedure::text, ', ') from pg_proc as p
     where p.pronamespace = 'actae'::regnamespace and p.proowner <> 'actae_owner'::regrole),
    null, 'every function is owned by actae_owner');
select is(
    (select string_agg(c.relname, ', ') from pg_class as c
     where c.relnamespace = 'actae'::regnamespace
       and c.relname in ('channels', 'events', 'snapshots', 'operations', 'executions')
       and c.relowner <> 'actae_owner'::regrole),
    null, 'every ledger table is owned by actae_owner');
select results_eq(
    $$select rolcanlogin, rolsuper, rolbypassrls, rolcreaterole from pg_roles
      where rolname = 'actae_owner'$$,
    $$values (false, false, false, false)$$,
    'actae_owner cannot log in and has no superuser, bypassrls or createrole power');
select results_eq(
    $$select rolname::text collate "C", rolcanlogin from pg_roles
      where rolname in ('actae_agent', 'actae_auditor') order by 1$$,
    $$values ('actae_agent'::text collate "C", false), ('actae_auditor', false)$$,
    'the agent and auditor roles are NOLOGIN groups to grant to login users');

select * from finish();
rollback;
