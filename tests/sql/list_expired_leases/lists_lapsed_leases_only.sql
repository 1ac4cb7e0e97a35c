-- list_expired_leases lists claimed/in_progress executions whose lease lapsed (the
-- reclaim candidates), oldest lease first — not live, completed or failed ones.
-- Assertions look only at this test's rows: other committed data may exist.
begin;
\ir ../helpers.psql
select plan(6);

select actae.claim_execution('tap-exp', 'live', 't', '{}');
select pg_temp.expire(execution_id) from actae.claim_execution('tap-exp', 'lapsed', 't', '{}');
create temp table beat as select * from actae.claim_execution('tap-exp', 'beat', 't', '{}');
select actae.heartbeat_execution(execution_id, claim_token) from beat;
update actae.executions set lease_expires_at = clock_timestamp() - interval '1 hour'
where channel_id = 'tap-exp' and key_name = 'beat';
create temp table done as select * from actae.claim_execution('tap-exp', 'done', 't', '{}');
select actae.complete_execution(execution_id, claim_token, '1') from done;
select pg_temp.expire(execution_id) from done;
create temp table failed as select * from actae.claim_execution('tap-exp', 'failed', 't', '{}');
select actae.fail_execution(execution_id, 'x', claim_token) from failed;
select pg_temp.expire(execution_id) from failed;

select results_eq(
    $$select key_name, status from actae.list_expired_leases(100000)
      where channel_id = 'tap-exp'$$,
    $$values ('beat'::text, 'in_progress'::text), ('lapsed', 'claimed')$$,
    'lapsed claimed and in_progress rows, oldest lease first');
select is(
    (select count(*) from actae.list_expired_leases(1)), 1::bigint, 'max_rows caps the list');
select throws_ok($$select * from actae.list_expired_leases(0)$$, 'AC400', null,
    'max_rows 0 is AC400');
select throws_ok($$select * from actae.list_expired_leases(100001)$$, 'AC400', null,
    'max_rows 100001 is AC400');
select throws_ok($$select * from actae.list_expired_leases(null)$$, 'AC400', null,
    'a null max_rows is AC400');
select is(
    (select outcome from actae.claim_execution('tap-exp', 'lapsed', 't', '{}')), 'reclaimed',
    'a listed execution is indeed reclaimable');

select * from finish();
rollback;
