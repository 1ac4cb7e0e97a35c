-- An awaited event recorded at the very instant of the deadline counts ("no later than the
-- deadline"): the re-executed wait receives it instead of timing out. The clock is pinned
-- for the test (actae._now replaced inside its transaction).
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql

select plan(3);

create or replace function actae._now() returns timestamptz language sql volatile
as $$ select '2030-01-01 00:00:00+00'::timestamptz $$;
select actae.start_run('tap-we-dl', 'a', '{}', 'tap-q-we-dl');
create temp table c as select * from actae.claim_run('tap-q-we-dl', 'w');
select is((select outcome from actae.wait_for_event('tap-we-dl', (select claim_token from c),
    'k', 'approval', 10)), 'waiting', 'a wait of 10 seconds parks');
create or replace function actae._now() returns timestamptz language sql volatile
as $$ select '2030-01-01 00:00:10+00'::timestamptz $$;
select actae.record_event('tap-we-dl', 'approval', '{"ok": true}');
create temp table c2 as select * from actae.claim_run('tap-q-we-dl', 'w');
create temp table r as select * from actae.wait_for_event('tap-we-dl',
    (select claim_token from c2), 'k', 'approval', 10);
select is(outcome, 'received', 'an event recorded at the deadline is received') from r;
select is(cursor, 2::bigint, 'that event') from r;

select * from finish();
rollback;
