-- cancel_execution's optional last argument channel_id: the right channel records the
-- request as without it; another channel is AC404 and writes nothing.
begin;
\ir ../helpers.psql
select plan(3);

create temp table claim as select * from actae.claim_execution('tap-xch', 'k', 't', '{}');
create temp table before as select pg_temp.ledger_digest() as digest;

select throws_ok(
    $$select actae.cancel_execution(execution_id, 'stop', 'tap-xch-other') from claim$$,
    'AC404', null, 'an execution of another channel is AC404');
select is(pg_temp.ledger_digest(), digest, 'the failed call wrote nothing') from before;
select ok(
    (select cancel_requested from actae.cancel_execution(c.execution_id, 'stop', 'tap-xch')),
    'the execution''s own channel records the request'
) from claim as c;

select * from finish();
rollback;
