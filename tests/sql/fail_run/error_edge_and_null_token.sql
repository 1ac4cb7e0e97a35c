-- fail_run's error may be 65536 bytes (the edge is accepted); a null claim_token is AC400
-- naming claim_token (not a lease error) and leaves the run as it was.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql

select plan(3);

create temp table c as select * from pg_temp.started_claim('tap-fr-edge', 'tap-q-fr-edge');
create temp table before as select pg_temp.run_json('tap-fr-edge') as j;
select is(pg_temp.error_of($$select actae.fail_run('tap-fr-edge', null, 'e')$$)
    -> 'detail' ->> 'argument', 'claim_token', 'a null claim_token is AC400');
select is(pg_temp.run_json('tap-fr-edge'), (select j from before), 'the run is untouched');
select is((select length(error) from actae.fail_run('tap-fr-edge',
    (select claim_token from c), repeat('e', 65536), false)), 65536,
    'an error of 65536 bytes is accepted and stored');

select * from finish();
rollback;
