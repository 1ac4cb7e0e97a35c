-- A fork's wait receives the first awaited event after the wait, across its lineage: an
-- event inherited from the source's prefix answers before one recorded in the fork itself,
-- so the fork gets the same answer as its source.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql

select plan(3);

create temp table c as select * from pg_temp.started_claim('tap-we-fe', 'tap-q-we-fe');
select actae.wait_for_event('tap-we-fe', (select claim_token from c), 'k', 'approval', 600);
select actae.record_event('tap-we-fe', 'approval', '{"n": 1}');
select actae.fork_channel('tap-we-fe', 2, 'tap-we-fe-fork');
select actae.record_event('tap-we-fe-fork', 'approval', '{"n": 2}');
select actae.start_run('tap-we-fe-fork', 'agent', '{"n": 1}', 'tap-q-we-fe-f');
create temp table f as select * from actae.claim_run('tap-q-we-fe-f', 'w');
create temp table r as select * from actae.wait_for_event('tap-we-fe-fork',
    (select claim_token from f), 'k', 'approval', 600);
select is(outcome, 'received', 'the fork''s wait is received') from r;
select is(payload, '{"n": 1}'::jsonb, 'the inherited event, the first after the wait') from r;
select is(cursor, 2::bigint, 'at its cursor in the prefix') from r;

select * from finish();
rollback;
