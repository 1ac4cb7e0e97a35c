-- With agents given, only runs of those agents are claimed; an empty list, a
-- list with a null and a nested list are AC400 and claim nothing.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(7);

select actae.start_run('tap-cr3-a', 'alpha', '1', 'tap-q-cr3');
select actae.start_run('tap-cr3-b', 'beta', '1', 'tap-q-cr3');
select actae.start_run('tap-cr3-d', 'delta', '1', 'tap-q-cr3');
update actae.runs set due_at = due_at - interval '1 minute' where channel_id = 'tap-cr3-a';
select is((select channel_id from actae.claim_run('tap-q-cr3', 'w', array['beta'])),
    'tap-cr3-b', 'only beta runs for a beta worker, though alpha is older');
select is((select count(*) from actae.claim_run('tap-q-cr3', 'w', array['gamma'])), 0::bigint,
    'no run of gamma');
select is((select channel_id from actae.claim_run('tap-q-cr3', 'w', array['gamma', 'alpha'])),
    'tap-cr3-a', 'any of several agents');
select is(pg_temp.error_of($$select * from actae.claim_run('tap-q-cr3', 'w', '{}')$$)
    -> 'detail' ->> 'argument', 'agents', 'an empty agents list is AC400');
select is(pg_temp.error_of(
    $$select * from actae.claim_run('tap-q-cr3', 'w', array['delta', null])$$)
    ->> 'sqlstate', 'AC400', 'a null agent is AC400, though a delta run is due');
select is(pg_temp.error_of(
    $$select * from actae.claim_run('tap-q-cr3', 'w', array[['delta'], ['alpha']])$$)
    -> 'detail' ->> 'argument', 'agents', 'a nested agents list is AC400');
select is((select status from actae.runs where channel_id = 'tap-cr3-d'), 'queued',
    'the refused claims left the delta run queued');

select * from finish();
rollback;
