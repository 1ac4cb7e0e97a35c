-- claim_runs is claim_run up to max_runs times in one call: a different run per row, oldest
-- due first, each with its own fresh token and outcome; fewer rows than max_runs when fewer
-- are due, none when none is; runs not due and other queues are untouched.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(9);

select actae.start_run('tap-crs-' || n, 'a', n::text::jsonb, 'tap-q-crs')
from generate_series(1, 4) as n;
select actae.start_run('tap-crs-other', 'a', '0', 'tap-q-crs-other');
select actae.start_run('tap-crs-later', 'a', '9', 'tap-q-crs', now() + interval '1 hour');
update actae.runs set due_at = due_at - make_interval(mins => 10 - right(channel_id, 1)::int)
where channel_id like 'tap-crs-_';
create temp table c as select * from actae.claim_runs('tap-q-crs', 'worker-3', 3, null, 30);
select is((select array_agg(channel_id) from c), array['tap-crs-1', 'tap-crs-2', 'tap-crs-3'],
    'three runs, oldest due first');
select ok((select bool_and(outcome = 'claimed' and status = 'running' and worker = 'worker-3'
    and lease_seconds = 30) from c), 'each claimed as claim_run claims');
select is((select count(distinct claim_token) from c), 3::bigint, 'a fresh token each');
select ok((select bool_and(claim_token = pg_temp.token_of(channel_id)) from c),
    'each token is the stored one');
select is((select array_agg(channel_id) from actae.claim_runs('tap-q-crs', 'w', 5)),
    array['tap-crs-4'], 'fewer due than asked for: the one left');
select is((select count(*) from actae.claim_runs('tap-q-crs', 'w', 5)), 0::bigint,
    'nothing due: no row');
select is((select status from actae.runs where channel_id = 'tap-crs-later'), 'queued',
    'a run not yet due is untouched');
select is((select status from actae.runs where channel_id = 'tap-crs-other'), 'queued',
    'another queue is untouched');
select is((select array_agg(channel_id) from actae.claim_runs('tap-q-crs-other', 'w', 1)),
    array['tap-crs-other'], 'max_runs 1 is claim_run');

select * from finish();
rollback;
