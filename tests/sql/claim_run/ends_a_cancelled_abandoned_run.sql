-- A running run whose cancellation was requested and whose owner let the lease lapse is
-- ended as cancelled by the next claim instead of being handed out again.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(3);

select pg_temp.started_claim('tap-cr5', 'tap-q-cr5');
select actae.cancel_run('tap-cr5', 'no longer needed');
select pg_temp.make_due('tap-cr5');
select is((select count(*) from actae.claim_run('tap-q-cr5', 'w2')), 0::bigint,
    'nothing is handed out');
select is((select status from actae.get_run('tap-cr5')), 'cancelled', 'the run is cancelled');
select is((select error from actae.get_run('tap-cr5')), 'cancelled: no longer needed',
    'error names the reason');

select * from finish();
rollback;
