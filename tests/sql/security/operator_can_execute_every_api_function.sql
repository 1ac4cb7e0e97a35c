-- actae_operator can execute every API function (no leading "_"), the operator-only ones
-- included, and no private helper. It holds EXECUTE directly on exactly the operator-only
-- functions (cancel_execution, purge, cancel_run, assign_tenant, set_quota,
-- measure_usage); every other API function reaches it through its membership of
-- actae_agent and actae_auditor (sql/90_grants.sql). As actae_operator, set_quota,
-- measure_usage and assign_tenant run.
begin;
\ir ../helpers.psql
select plan(6);

select is(
    (select string_agg(p.oid::regprocedure::text, ', ') from pg_proc as p
     where p.pronamespace = 'actae'::regnamespace and p.proname not like '\_%'
       and not has_function_privilege('actae_operator', p.oid, 'execute')),
    null, 'actae_operator can execute every API function');
select is(
    (select string_agg(p.oid::regprocedure::text, ', ') from pg_proc as p
     where p.pronamespace = 'actae'::regnamespace and p.proname like '\_%'
       and has_function_privilege('actae_operator', p.oid, 'execute')),
    null, 'and no private helper');
select is(
    (select array_agg(distinct p.proname::text order by p.proname::text) from pg_proc as p
     cross join lateral aclexplode(p.proacl) as a
     where p.pronamespace = 'actae'::regnamespace
       and a.grantee = 'actae_operator'::regrole),
    array['assign_tenant', 'cancel_execution', 'cancel_run', 'measure_usage', 'purge',
        'set_quota'],
    'its own EXECUTE grants are exactly the operator-only functions');

create role tap_opx_tenant nologin;
grant actae_agent to tap_opx_tenant;
select actae.create_channel('tap-opx');

set local role actae_operator;
select lives_ok($$select actae.set_quota('tap_opx_tenant', 5)$$, 'the operator sets a quota');
select lives_ok($$select * from actae.measure_usage()$$, 'the operator measures usage');
select lives_ok($$select actae.assign_tenant('tap-opx', 'tap_opx_tenant')$$,
    'the operator assigns a channel to a tenant');
reset role;

select * from finish();
rollback;
