-- list_runs filters by queue, status and agent (each optional), oldest first, at most
-- max_rows (1..100000), never with claim tokens; an unknown status is AC400.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(7);

select actae.start_run('tap-lr1-a', 'alpha', '1', 'tap-q-lr1');
select actae.start_run('tap-lr1-b', 'beta', '1', 'tap-q-lr1');
select actae.start_run('tap-lr1-c', 'alpha', '1', 'tap-q-lr1');
select actae.claim_run('tap-q-lr1', 'w', array['beta']);
select is((select array_agg(channel_id) from actae.list_runs('tap-q-lr1')),
    array['tap-lr1-a', 'tap-lr1-b', 'tap-lr1-c'], 'the queue, oldest first');
select is((select array_agg(channel_id) from actae.list_runs('tap-q-lr1', 'queued')),
    array['tap-lr1-a', 'tap-lr1-c'], 'by status');
select is((select array_agg(channel_id) from actae.list_runs('tap-q-lr1', null, 'beta')),
    array['tap-lr1-b'], 'by agent');
select is((select count(*) from actae.list_runs('tap-q-lr1', null, null, 1)), 1::bigint,
    'at most max_rows');
select ok((select bool_and(claim_token is null) from actae.list_runs('tap-q-lr1')),
    'no claim tokens');
select is(pg_temp.error_of($$select * from actae.list_runs(null, 'asleep')$$)
    -> 'detail' ->> 'argument', 'status', 'an unknown status is AC400');
select is(pg_temp.error_of($$select * from actae.list_runs(null, null, null, 0)$$)
    -> 'detail' ->> 'argument', 'max_rows', 'max_rows 0 is AC400');

select * from finish();
rollback;
