-- The optional last argument channel_id: the right channel records the failure as without
-- it; another channel is AC404 and writes nothing.
begin;
\ir ../helpers.psql
select plan(3);

create temp table claim as select * from actae.claim_execution('tap-fch', 'k', 't', '{}');
create temp table before as select pg_temp.ledger_digest() as digest;

select throws_ok(
    $$select actae.fail_execution(execution_id, 'x', claim_token, true, 'tap-fch-other')
    from claim$$,
    'AC404', null, 'an execution of another channel is AC404');
select is(pg_temp.ledger_digest(), digest, 'the failed call wrote nothing') from before;
select is(
    (select status from actae.fail_execution(c.execution_id, 'x', c.claim_token, true, 'tap-fch')),
    'failed', 'the execution''s own channel fails it'
) from claim as c;

select * from finish();
rollback;
