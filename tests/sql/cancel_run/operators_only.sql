-- cancel_run is an operator function: actae_agent cannot execute it (42501), actae_operator
-- can; actae_auditor can read runs (get_run, list_runs, the table without claim_token).
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(6);

select actae.start_run('tap-ca3', 'a', '1', 'tap-q-ca3');
set local role actae_agent;
select throws_ok($$select actae.cancel_run('tap-ca3', 'x')$$, '42501', null,
    'the agent role cannot cancel runs');
select lives_ok($$select * from actae.claim_run('tap-q-ca3-none', 'w')$$,
    'the agent role runs the worker functions');
reset role;
set local role actae_operator;
select is((select outcome from actae.cancel_run('tap-ca3', 'x')), 'cancelled',
    'the operator role can');
reset role;
set local role actae_auditor;
select is((select status from actae.get_run('tap-ca3')), 'cancelled', 'the auditor reads get_run');
select throws_ok($$select claim_token from actae.runs$$, '42501', null,
    'the auditor cannot read claim tokens');
select lives_ok($$select channel_id, status from actae.runs$$, 'but reads the other columns');
reset role;

select * from finish();
rollback;
