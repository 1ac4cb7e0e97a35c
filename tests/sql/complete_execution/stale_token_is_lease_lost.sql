-- After another worker reclaimed the execution, the previous owner's completion is AC423
-- (lease_lost) and writes nothing — even when the new owner's lease has itself lapsed,
-- and even after the new owner completed (the token is checked before the status).
begin;
\ir ../helpers.psql
select plan(6);

create temp table old as select * from actae.claim_execution('tap-stale', 'k', 't', '{}');
select pg_temp.expire(execution_id) from old;
create temp table new as select * from actae.claim_execution('tap-stale', 'k', 't', '{}');
select is(outcome, 'reclaimed', 'a second worker reclaimed the lapsed lease') from new;

select throws_ok(
    $$select actae.complete_execution(execution_id, claim_token, '"late"') from old$$,
    'AC423', null, 'the previous owner''s completion is AC423');

select pg_temp.expire(execution_id) from new;
create temp table stored_before as select pg_temp.stored(execution_id) as row from new;
select throws_ok(
    $$select actae.complete_execution(execution_id, claim_token, '"late"') from old$$,
    'AC423', null, 'still AC423 when the new owner''s lease has lapsed too');
select is(pg_temp.stored(n.execution_id), b.row, 'nothing was written')
from new as n, stored_before as b;

select actae.complete_execution(execution_id, claim_token, '"new"') from new;
select throws_ok(
    $$select actae.complete_execution(execution_id, claim_token, '"new"') from old$$,
    'AC423', null, 'a stale token with the very same result is AC423 after completion');
select throws_ok(
    $$select actae.complete_execution(gen_random_uuid(), claim_token, '"x"') from old$$,
    'AC404', null, 'an unknown execution_id is AC404');

select * from finish();
rollback;
