-- max_runs must be 1..1000 (AC400 naming max_runs, null included); the other arguments are
-- checked as claim_run checks them. A rejected call claims nothing; 1000 is accepted.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(7);

select actae.start_run('tap-crs6', 'a', '1', 'tap-q-crs6');
select is(pg_temp.error_of($$select * from actae.claim_runs('tap-q-crs6', 'w', 0)$$)
    -> 'detail' ->> 'argument', 'max_runs', 'max_runs 0');
select is(pg_temp.error_of($$select * from actae.claim_runs('tap-q-crs6', 'w', 1001)$$)
    -> 'detail' ->> 'argument', 'max_runs', 'max_runs 1001');
select is(pg_temp.error_of($$select * from actae.claim_runs('tap-q-crs6', 'w', null)$$)
    -> 'detail' ->> 'argument', 'max_runs', 'null max_runs');
select is(pg_temp.error_of($$select * from actae.claim_runs('tap-q-crs6', '', 2)$$)
    -> 'detail' ->> 'argument', 'worker', 'empty worker, as claim_run');
select is(pg_temp.error_of($$select * from actae.claim_runs('tap-q-crs6', 'w', 2, null, 0)$$)
    -> 'detail' ->> 'argument', 'lease_seconds', 'lease_seconds 0, as claim_run');
select is((select status from actae.runs where channel_id = 'tap-crs6'), 'queued',
    'nothing was claimed');
select is((select count(*) from actae.claim_runs('tap-q-crs6', 'w', 1000)), 1::bigint,
    'max_runs 1000 is accepted');

select * from finish();
rollback;
