-- A claim_token is the proof of ownership: whoever reads one can heartbeat, complete or fail
-- that execution. actae_auditor (and actae_operator, which is a member) reads every other
-- column of actae.executions, but not claim_token.
begin;
\ir ../helpers.psql
select plan(4);

select actae.claim_execution('tap-tokens', 'k', 'search', '{"q": 1}');

set local role actae_auditor;
select is((select status from actae.executions where channel_id = 'tap-tokens'), 'claimed',
    'the auditor reads the ledger');
select throws_ok($$select claim_token from actae.executions$$, '42501', null,
    'the auditor cannot read claim_token');
select throws_ok($$select * from actae.executions$$, '42501', null,
    'so select * is refused too: name the columns');
reset role;
set local role actae_operator;
select throws_ok($$select claim_token from actae.executions$$, '42501', null,
    'nor can an operator, who is an auditor too');
reset role;

select * from finish();
rollback;
