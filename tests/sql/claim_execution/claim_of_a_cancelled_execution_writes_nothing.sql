-- A claim of a cancelled execution answers failed (status cancelled) and writes nothing:
-- its error, finish time and writer stay, so its key's lifetime does not start again.
begin;
\ir ../helpers.psql
select plan(2);

create temp table c as select * from actae.claim_execution('tap-cc', 'k', 't', '{}');
select actae.fail_execution(execution_id, 'x', claim_token, true) from c;
select actae.cancel_execution(execution_id, 'stop') from c;
select pg_temp.ledger_digest() as before \gset
select is((select row(outcome, status)::text
    from actae.claim_execution('tap-cc', 'k', 't', '{}')), '(failed,cancelled)',
    'a claim of a cancelled execution is failed, status cancelled');
select is(pg_temp.ledger_digest(), :'before', 'and writes nothing');

select * from finish();
rollback;
