-- A wait whose deadline passed with no event answers timed_out (claimed with wake_reason
-- timeout); an event recorded after the deadline does not count, so every re-execution
-- keeps answering timed_out. A zero timeout times out at once.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(4);

create temp table c as select * from pg_temp.started_claim('tap-we3', 'tap-q-we3');
select actae.wait_for_event('tap-we3', (select claim_token from c), 'k', 'approval', 600);
select pg_temp.age_parks('tap-we3');
select pg_temp.make_due('tap-we3');
create temp table c2 as select * from actae.claim_run('tap-q-we3', 'w');
select is(wake_reason, 'timeout', 'claimed because of the deadline') from c2;
select is((select outcome from actae.wait_for_event('tap-we3', (select claim_token from c2), 'k',
    'approval', 600)), 'timed_out', 'the wait timed out');
select actae.record_event('tap-we3', 'approval', '{"approved": true}');
select is((select outcome from actae.wait_for_event('tap-we3', (select claim_token from c2), 'k',
    'approval', 600)), 'timed_out', 'a late event does not change the answer');
select is((select outcome from actae.wait_for_event('tap-we3', (select claim_token from c2), 'z',
    'approval', 0)), 'timed_out', 'a zero timeout times out at once');

select * from finish();
rollback;
