-- retryable = false makes the failure final: claims answer failed, the owner cannot
-- heartbeat or complete it any more.
begin;
\ir ../helpers.psql
select plan(4);

create temp table claim as select * from actae.claim_execution('tap-final', 'k', 't', '{}');
create temp table failed as
select * from actae.fail_execution(
    (select execution_id from claim), 'invalid card', (select claim_token from claim), false);
select is(retryable, false, 'retryable false is stored') from failed;
select is((select outcome from actae.claim_execution('tap-final', 'k', 't', '{}')), 'failed',
    'a later claim answers failed');
select pg_temp.expire(execution_id) from claim;
select is((select outcome from actae.claim_execution('tap-final', 'k', 't', '{}')), 'failed',
    'even once the old lease time has passed');
select throws_ok($$select actae.complete_execution(execution_id, claim_token, '1') from claim$$,
    'AC409', null, 'the owner can no longer complete it');

select * from finish();
rollback;
