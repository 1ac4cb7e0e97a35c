-- An event of the type recorded before the wait was first recorded does not satisfy it; the
-- first one after it does, and keeps being the answer (not a later one).
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(3);

select actae.record_event('tap-we4', 'approval', '{"approved": false}');
create temp table c as select * from pg_temp.started_claim('tap-we4', 'tap-q-we4');
select is((select outcome from actae.wait_for_event('tap-we4', (select claim_token from c), 'k',
    'approval', 600)), 'waiting', 'the earlier approval does not count');
select actae.record_event('tap-we4', 'approval', '{"approved": true, "n": 1}');
select actae.record_event('tap-we4', 'approval', '{"approved": true, "n": 2}');
create temp table c2 as select * from actae.claim_run('tap-q-we4', 'w');
create temp table r as select * from actae.wait_for_event('tap-we4', (select claim_token from c2),
    'k', 'approval', 600);
select is(payload ->> 'n', '1', 'the first event after the wait is received') from r;
select is(cursor, 3::bigint, 'at its cursor') from r;

select * from finish();
rollback;
