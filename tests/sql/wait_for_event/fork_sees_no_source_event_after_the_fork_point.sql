-- A fork inherits a wait and the source's events up to the fork point only: an awaited
-- event recorded in the source after the fork point does not answer the fork's wait (it
-- parks); one recorded in the fork does.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql

select plan(3);

create temp table c as select * from pg_temp.started_claim('tap-we-fk', 'tap-q-we-fk');
select actae.wait_for_event('tap-we-fk', (select claim_token from c), 'k', 'approval', 600);
select actae.record_event('tap-we-fk', 'comment', '{"text": "hi"}');
select actae.fork_channel('tap-we-fk', 2, 'tap-we-fk-fork');
select actae.record_event('tap-we-fk', 'approval', '{"source": true}');
select actae.start_run('tap-we-fk-fork', 'agent', '{"n": 1}', 'tap-q-we-fk-f');
create temp table f as select * from actae.claim_run('tap-q-we-fk-f', 'w');
select is((select outcome from actae.wait_for_event('tap-we-fk-fork',
    (select claim_token from f), 'k', 'approval', 600)), 'waiting',
    'the source''s approval after the fork point does not answer the fork');
select actae.record_event('tap-we-fk-fork', 'approval', '{"fork": true}');
create temp table f2 as select * from actae.claim_run('tap-q-we-fk-f', 'w');
create temp table r as select * from actae.wait_for_event('tap-we-fk-fork',
    (select claim_token from f2), 'k', 'approval', 600);
select is(outcome, 'received', 'the fork''s own approval does') from r;
select is(payload, '{"fork": true}'::jsonb, 'with its payload') from r;

select * from finish();
rollback;
