-- queue and worker 1-256 bytes, lease_seconds 1-86400, each name in agents 1-256 bytes (as
-- start_run's agent): one past an edge is AC400 naming the argument and claims nothing; the
-- edges are accepted.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(10);

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
select is(pg_temp.error_of($$select * from actae.claim_run('tap-q-cr6', 'w', array['a', ''])$$)
    -> 'detail' ->> 'argument', 'agents', 'an empty agent name');
select is(pg_temp.error_of(
    $$select * from actae.claim_run('tap-q-cr6', 'w', array['a', repeat('a', 257)])$$)
    -> 'detail' ->> 'argument', 'agents', 'an agent name of 257 bytes');
select is((select status from actae.runs where channel_id = 'tap-cr6'), 'queued',
    'nothing was claimed');
select actae.start_run('tap-cr6-long', repeat('a', 256), '1', 'tap-q-cr6-long');
select is((select channel_id from actae.claim_run('tap-q-cr6-long', 'w',
    array['b', repeat('a', 256)])), 'tap-cr6-long', 'an agent name of 256 bytes is accepted');
select is((select lease_seconds from actae.claim_run('tap-q-cr6', repeat('w', 256), null,
    86400)), 86400, 'the edges are accepted');

select * from finish();
rollback;
