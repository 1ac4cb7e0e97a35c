-- An event wakes a run only while it waits for it: a run whose wait timed out and that now
-- sleeps (still remembering the event type it waited for) is not woken by that type; it
-- stays due at its wake time, wake_reason timer.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql

select plan(3);

create temp table c as select * from pg_temp.started_claim('tap-we-ow', 'tap-q-we-ow');
select actae.wait_for_event('tap-we-ow', (select claim_token from c), 'k', 'approval', 600);
select pg_temp.age_parks('tap-we-ow');
select pg_temp.make_due('tap-we-ow');
create temp table c2 as select * from actae.claim_run('tap-q-we-ow', 'w');
select is((select outcome from actae.wait_for_event('tap-we-ow', (select claim_token from c2),
    'k', 'approval', 600)), 'timed_out', 'the wait timed out');
select actae.sleep_run('tap-we-ow', (select claim_token from c2), 'nap', 3600);
select actae.record_event('tap-we-ow', 'approval', '{"approved": true}');
select ok((select status = 'sleeping' and wake_reason = 'timer'
    and due_at > clock_timestamp() + interval '59 minutes'
    from actae.runs where channel_id = 'tap-we-ow'), 'the sleeping run is not woken');
select is((select count(*) from actae.claim_run('tap-q-we-ow', 'w')), 0::bigint,
    'nothing is due');

select * from finish();
rollback;
