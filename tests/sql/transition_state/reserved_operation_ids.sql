-- Operation ids beginning with 'actae.' are Actae's own (the sleeps and waits of runs):
-- transition_state refuses them with AC400 naming operation_id and writes nothing, so no
-- caller can take the id of a run's wait (which would make wait_for_event with that key
-- AC409 forever).
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(7);

create temp table c as select * from pg_temp.started_claim('tap-trres', 'tap-q-trres');
create temp table digest_before as select pg_temp.ledger_digest() as d;

select is(pg_temp.error_of($$select actae.transition_state('tap-trres', 't', '{}', '{}', 0,
    null, 'actae.wait:w')$$) ->> 'sqlstate', 'AC400', 'actae.wait:<key> is AC400');
select is(pg_temp.error_of($$select actae.transition_state('tap-trres', 't', '{}', '{}', 0,
    null, 'actae.wait:w')$$) -> 'detail' ->> 'argument', 'operation_id', 'naming operation_id');
select is(pg_temp.error_of($$select actae.transition_state('tap-trres', 't', '{}', '{}', 0,
    null, 'actae.sleep:s')$$) -> 'detail' ->> 'argument', 'operation_id',
    'actae.sleep:<key> too');
select is(pg_temp.ledger_digest(), d, 'nothing was written') from digest_before;
select is(pg_temp.error_of($$select actae.wait_for_event('tap-trres', claim_token, 'w',
    'approval', 3600) from c$$), null, 'wait_for_event with that key is not refused');
select is((select status from actae.get_run('tap-trres')), 'waiting', 'it parked the run');
select lives_ok(format($$select actae.transition_state('tap-trres', 't', '{}', '{}', %s,
    null, 'run:actae.wait:w')$$, (select state_version from actae.get_channel('tap-trres'))),
    'a caller''s id that contains the prefix later is accepted');

select * from finish();
rollback;
