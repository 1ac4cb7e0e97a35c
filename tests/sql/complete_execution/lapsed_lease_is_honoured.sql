-- A lapsed lease nobody reclaimed is still the owner's: its completion is accepted and
-- later claims replay it.
begin;
\ir ../helpers.psql
select plan(3);

create temp table claim as select * from actae.claim_execution('tap-lapse', 'k', 't', '{}');
select pg_temp.expire(execution_id) from claim;
select lives_ok(
    $$select actae.complete_execution(execution_id, claim_token, '"late but mine"') from claim$$,
    'the completion after the lease lapsed is honoured');
select is((select status from actae.executions where channel_id = 'tap-lapse'), 'completed',
    'the execution is completed');
select is((select outcome from actae.claim_execution('tap-lapse', 'k', 't', '{}')), 'replayed',
    'the next claim replays it instead of reclaiming');

select * from finish();
rollback;
