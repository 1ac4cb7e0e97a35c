-- A wait and its event recorded in the source before the fork point are inherited: a run on
-- the fork receives the same event without parking.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(2);

create temp table c as select * from pg_temp.started_claim('tap-we5', 'tap-q-we5');
select actae.wait_for_event('tap-we5', (select claim_token from c), 'k', 'approval', 600);
select actae.record_event('tap-we5', 'approval', '{"approved": true}');
select actae.fork_channel('tap-we5', 2, 'tap-we5-fork');
select actae.start_run('tap-we5-fork', 'agent', '{"n": 1}', 'tap-q-we5-f');
create temp table f as select * from actae.claim_run('tap-q-we5-f', 'w');
create temp table r as select * from actae.wait_for_event('tap-we5-fork',
    (select claim_token from f), 'k', 'approval', 600);
select ok(outcome = 'received' and payload = '{"approved": true}' and cursor = 2,
    'the inherited event is received') from r;
select is((select head_cursor from actae.get_channel('tap-we5-fork')), 2::bigint,
    'nothing new is recorded in the fork');

select * from finish();
rollback;
