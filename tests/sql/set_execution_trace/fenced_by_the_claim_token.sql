-- Only the current owner of a claimed or in-progress attempt can record a trace: a random
-- token and a reclaimed owner's old token are AC423, a finished execution is AC409, an
-- unknown execution AC404. Nothing is written by a failed call.
begin;
\ir ../helpers.psql
select plan(6);

create temp table old as select * from actae.claim_execution('tap-tr2', 'k', 't', '{}');
create temp table digest as select pg_temp.ledger_digest() as d,
    (select count(*) from actae.execution_traces) as traces;
select throws_ok(
    $$select actae.set_execution_trace(execution_id, gen_random_uuid(),
        '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01') from old$$,
    'AC423', null, 'a random token is AC423');
select throws_ok(
    $$select actae.set_execution_trace(gen_random_uuid(), gen_random_uuid(),
        '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01')$$,
    'AC404', null, 'an unknown execution is AC404');
select is(
    (select count(*) from actae.execution_traces), (select traces from digest),
    'the failed calls wrote no trace');

select pg_temp.expire(execution_id) from old;
create temp table new as select * from actae.claim_execution('tap-tr2', 'k', 't', '{}');
select throws_ok(
    $$select actae.set_execution_trace(execution_id, claim_token,
        '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01') from old$$,
    'AC423', null, 'the previous owner''s token is AC423 after a reclaim');

select actae.complete_execution(execution_id, claim_token, '1') from new;
select throws_ok(
    $$select actae.set_execution_trace(execution_id, claim_token,
        '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01') from new$$,
    'AC409', null, 'a completed execution is AC409');
select is(
    (select count(*) from actae.execution_traces
     where execution_id = (select execution_id from new)), 0::bigint,
    'no trace was recorded for it');

select * from finish();
rollback;
