-- A token that is not the current owner's is AC423 (lease_lost): a random token, and the
-- previous owner's token after a reclaim. The token is checked before the status, so a
-- stale token gets AC423 even once the execution has finished. Nothing is written.
begin;
\ir ../helpers.psql
select plan(6);

create temp table old as select * from actae.claim_execution('tap-hb3', 'k', 't', '{}');
select throws_ok(
    $$select actae.heartbeat_execution(execution_id, gen_random_uuid()) from old$$,
    'AC423', null, 'a random token is AC423'
);
select pg_temp.expire(execution_id) from old;
create temp table new as select * from actae.claim_execution('tap-hb3', 'k', 't', '{}');
select is(outcome, 'reclaimed', 'another worker reclaimed the lapsed lease') from new;
create temp table stored_before as select pg_temp.stored(execution_id) as row from new;

select throws_ok(
    $$select actae.heartbeat_execution(execution_id, claim_token) from old$$,
    'AC423', null, 'the previous owner''s heartbeat is AC423'
);
select is(pg_temp.stored(n.execution_id), b.row, 'the new owner''s row is untouched')
from new as n, stored_before as b;
select is(
    pg_temp.error_of($$select actae.heartbeat_execution(execution_id, claim_token) from old$$)
        -> 'detail' ->> 'fence',
    '2', 'DETAIL carries the current fence'
);
select actae.complete_execution(execution_id, claim_token, '1') from new;
select throws_ok(
    $$select actae.heartbeat_execution(execution_id, claim_token) from old$$,
    'AC423', null, 'a stale token on a completed execution is still AC423, not AC409'
);

select * from finish();
rollback;
