-- A sleep that would park a run whose cancellation was requested ends it as cancelled
-- instead (outcome cancelled).
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(2);

create temp table c as select * from pg_temp.started_claim('tap-sl5', 'tap-q-sl5');
select actae.cancel_run('tap-sl5', 'stop');
select is((select outcome from actae.sleep_run('tap-sl5', (select claim_token from c), 'nap',
    60)), 'cancelled', 'outcome cancelled');
select is((select status from actae.get_run('tap-sl5')), 'cancelled', 'the run is over');

select * from finish();
rollback;
