-- queue and worker 1-256 bytes, lease_seconds 1-86400: one past an edge is AC400 naming the
-- argument and claims nothing; the edges are accepted.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(7);

select actae.start_run('tap-cr6', 'a', '1', 'tap-q-cr6');
select is(pg_temp.error_of($$select * from actae.claim_run(repeat('q', 257), 'w')$$)
    -> 'detail' ->> 'argument', 'queue', 'queue of 257 bytes');
select is(pg_temp.error_of($$select * from actae.claim_run('tap-q-cr6', '')$$)
    -> 'detail' ->> 'argument', 'worker', 'empty worker');
select is(pg_temp.error_of($$select * from actae.claim_run('tap-q-cr6', null)$$)
    -> 'detail' ->> 'argument', 'worker', 'null worker');
select is(pg_temp.error_of($$select * from actae.claim_run('tap-q-cr6', 'w', null, 0)$$)
    -> 'detail' ->> 'argument', 'lease_seconds', 'lease_seconds 0');
select is(pg_temp.error_of($$select * from actae.claim_run('tap-q-cr6', 'w', null, 86401)$$)
    -> 'detail' ->> 'argument', 'lease_seconds', 'lease_seconds 86401');
select is((select status from actae.runs where channel_id = 'tap-cr6'), 'queued',
    'nothing was claimed');
select is((select lease_seconds from actae.claim_run('tap-q-cr6', repeat('w', 256), null,
    86400)), 86400, 'the edges are accepted');

select * from finish();
rollback;
