-- The no-op repeat of complete_run answers only the token that completed the run: the
-- previous owner's token (reclaimed, then completed by the new owner) is AC423 even with
-- the same result, and the new owner's repeat stays a no-op success.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql

select plan(3);

create temp table old as select * from pg_temp.started_claim('tap-co-st', 'tap-q-co-st');
select pg_temp.make_due('tap-co-st');
create temp table cur as select * from actae.claim_run('tap-q-co-st', 'w2');
select actae.complete_run('tap-co-st', (select claim_token from cur), '"done"');
select throws_ok($$select actae.complete_run('tap-co-st', claim_token, '"done"') from old$$,
    'AC423', null, 'the previous owner''s token is AC423, same result or not');
select throws_ok($$select actae.complete_run('tap-co-st', gen_random_uuid(), '"done"')$$,
    'AC423', null, 'so is a random token');
select is((select status from actae.complete_run('tap-co-st', (select claim_token from cur),
    '"done"')), 'completed', 'the completing owner''s repeat is a no-op success');

select * from finish();
rollback;
