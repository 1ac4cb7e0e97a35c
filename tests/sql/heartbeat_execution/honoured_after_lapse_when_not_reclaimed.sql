-- A token that is still the current one is honoured even after its lease lapsed, as long
-- as nobody reclaimed the execution: the heartbeat revives the lease.
begin;
\ir ../helpers.psql
select plan(3);

create temp table claim as select * from actae.claim_execution('tap-hb2', 'k', 't', '{}');
select pg_temp.expire(execution_id) from claim;
select ok((select lease_expires_at < clock_timestamp() from actae.executions
    where channel_id = 'tap-hb2'), 'the lease has lapsed');
select lives_ok(
    $$select actae.heartbeat_execution(execution_id, claim_token, 30) from claim$$,
    'the lapsed owner''s heartbeat is honoured'
);
select is(
    (select outcome from actae.claim_execution('tap-hb2', 'k', 't', '{}')),
    'in_progress', 'the revived lease is live again: another claim does not take over'
);

select * from finish();
rollback;
