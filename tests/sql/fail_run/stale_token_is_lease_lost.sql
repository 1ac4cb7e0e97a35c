-- fail_run is fenced: a token that is not the current one (the previous owner's after a
-- reclaim, or a random one) on a running run is AC423 and counts no failure; the new
-- owner's run is untouched, retryable or not.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql

select plan(5);

create temp table old as select * from pg_temp.started_claim('tap-fr-st', 'tap-q-fr-st');
select pg_temp.make_due('tap-fr-st');
create temp table cur as select * from actae.claim_run('tap-q-fr-st', 'w2');
create temp table before as select pg_temp.run_json('tap-fr-st') as j;
select throws_ok($$select actae.fail_run('tap-fr-st', claim_token, 'late', true) from old$$,
    'AC423', null, 'the previous owner''s retryable fail_run is AC423');
select throws_ok($$select actae.fail_run('tap-fr-st', claim_token, 'late', false) from old$$,
    'AC423', null, 'and its final fail_run too');
select throws_ok($$select actae.fail_run('tap-fr-st', gen_random_uuid(), 'x', false)$$,
    'AC423', null, 'a random token is AC423');
select is(pg_temp.run_json('tap-fr-st'), (select j from before),
    'the new owner''s run is untouched');
select is((select status || ' ' || failures from actae.fail_run('tap-fr-st',
    (select claim_token from cur), 'mine', true)), 'queued 1',
    'the current owner''s fail_run counts the failure');

select * from finish();
rollback;
