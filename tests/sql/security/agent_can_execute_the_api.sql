-- actae_agent can execute every API function (no leading "_") except the operator-only
-- cancel_execution, purge, cancel_run, assign_tenant, set_quota and measure_usage, and can
-- drive a whole run through them: claim, heartbeat, complete, fail, record, transition, fork and every read.
begin;
\ir ../helpers.psql
select plan(15);

select is(
    (select string_agg(p.oid::regprocedure::text, ', ') from pg_proc as p
     where p.pronamespace = 'actae'::regnamespace and p.proname not like '\_%'
       and p.proname not in (
           'cancel_execution', 'purge', 'cancel_run', 'assign_tenant', 'set_quota',
           'measure_usage'
       )
       and not has_function_privilege('actae_agent', p.oid, 'execute')),
    null, 'every API function is executable by actae_agent');
select is(
    (select string_agg(p.oid::regprocedure::text, ', ') from pg_proc as p
     where p.pronamespace = 'actae'::regnamespace
       and p.proname in (
           'cancel_execution', 'purge', 'cancel_run', 'assign_tenant', 'set_quota',
           'measure_usage'
       )
       and has_function_privilege('actae_agent', p.oid, 'execute')),
    null, 'the operator-only functions are not');

set local role actae_agent;
create temp table claim as
select * from actae.claim_execution('tap-agent', 'k', 't', '{"a": 1}');
select is(outcome, 'claimed', 'agent claims') from claim;
select lives_ok($$select actae.heartbeat_execution(execution_id, claim_token) from claim$$,
    'agent heartbeats');
select lives_ok($$select actae.complete_execution(execution_id, claim_token, '1') from claim$$,
    'agent completes');
select lives_ok($$select actae.fail_execution(execution_id, 'x', claim_token)
    from actae.claim_execution('tap-agent', 'k2', 't', '{}')$$, 'agent fails');
select lives_ok($$select actae.record_event('tap-agent', 'e', '{}')$$, 'agent records events');
select lives_ok($$select actae.transition_state('tap-agent', 't', '{}', '{}', 0)$$,
    'agent transitions state');
select lives_ok($$select actae.fork_channel('tap-agent', 1, 'tap-agent-fork')$$,
    'agent forks');
select lives_ok($$select actae.get_execution('tap-agent', 'k')$$, 'agent reads an execution');
select lives_ok($$select * from actae.list_executions('tap-agent')$$,
    'agent lists executions');
select lives_ok($$select * from actae.list_expired_leases()$$, 'agent lists expired leases');
select lives_ok($$select * from actae.list_events('tap-agent-fork')$$, 'agent lists events');
select lives_ok($$select actae.get_state('tap-agent')$$, 'agent reads state');
select throws_ok($$select actae.cancel_execution(execution_id, 'stop') from claim$$, '42501', null,
    'agent cannot cancel executions');
reset role;

select * from finish();
rollback;
