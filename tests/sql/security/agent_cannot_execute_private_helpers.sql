-- Private helpers (names starting with "_") can be executed by neither actae_agent nor
-- actae_auditor: only the SECURITY DEFINER API functions, running as actae_owner, call them.
begin;
\ir ../helpers.psql
select plan(5);

select cmp_ok(
    (select count(*) from pg_proc where pronamespace = 'actae'::regnamespace
       and proname like '\_%'), '>', 0::bigint, 'there are private helpers to check');
select is(
    (select string_agg(p.oid::regprocedure::text, ', ') from pg_proc as p
     where p.pronamespace = 'actae'::regnamespace and p.proname like '\_%'
       and has_function_privilege('actae_agent', p.oid, 'execute')),
    null, 'actae_agent can execute no private helper');
select is(
    (select string_agg(p.oid::regprocedure::text, ', ') from pg_proc as p
     where p.pronamespace = 'actae'::regnamespace and p.proname like '\_%'
       and has_function_privilege('actae_auditor', p.oid, 'execute')),
    null, 'actae_auditor can execute no private helper');

set local role actae_agent;
select throws_ok($$select actae._raise('AC400', 'forged')$$, '42501', null,
    'agent calling _raise is refused');
select throws_ok($$select actae._lock_channel('x', true)$$, '42501', null,
    'agent calling _lock_channel is refused');
reset role;

select * from finish();
rollback;
