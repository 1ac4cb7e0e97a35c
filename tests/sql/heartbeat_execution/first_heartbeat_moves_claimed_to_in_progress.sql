-- The first heartbeat moves claimed to in_progress; later heartbeats keep it there.
begin;
\ir ../helpers.psql
select plan(4);

create temp table claim as select * from actae.claim_execution('tap-hb1', 'k', 't', '{}');
select is(status, 'claimed', 'a new claim is claimed') from claim;
select is(
    (select status from actae.heartbeat_execution(c.execution_id, c.claim_token)),
    'in_progress', 'the first heartbeat returns in_progress'
) from claim as c;
select is((select status from actae.executions where execution_id = c.execution_id),
    'in_progress', 'in_progress is stored') from claim as c;
select is(
    (select status from actae.heartbeat_execution(c.execution_id, c.claim_token)),
    'in_progress', 'a second heartbeat stays in_progress'
) from claim as c;

select * from finish();
rollback;
