-- A transition appends the event at head + 1 and the snapshot version + 1 in one
-- transaction: the snapshot records the event's cursor, and if either write fails
-- neither remains (here the snapshot insert is made to fail after the event insert).
begin;
\ir ../helpers.psql
select plan(8);

select actae.record_event('tap-tr', 'start', '{}');
create temp table t1 as
select * from actae.transition_state('tap-tr', 'plan.set', '{"step": 1}', '{"plan": ["a"]}', 0);

select is(outcome, 'transitioned', 'outcome is transitioned') from t1;
select is(cursor, 2::bigint, 'the event is at head + 1') from t1;
select is(version, 1::bigint, 'the snapshot is version 1') from t1;
select results_eq(
    $$select s.version, s.cursor, s.state, e.event_type, e.payload
      from actae.snapshots as s inner join actae.events as e using (channel_id, cursor)
      where s.channel_id = 'tap-tr'$$,
    $$values (1::bigint, 2::bigint, '{"plan": ["a"]}'::jsonb, 'plan.set'::text,
        '{"step": 1}'::jsonb)$$,
    'the snapshot is stored with the event it was written with');
select results_eq($$select head_cursor, state_version from actae.get_channel('tap-tr')$$,
    $$values (2::bigint, 1::bigint)$$, 'the channel is at cursor 2, version 1');

-- Both or neither: make the snapshot insert fail after the event was inserted.
create function pg_temp.refuse_snapshot() returns trigger language plpgsql as $$
begin
    raise exception 'snapshot refused by the test';
end;
$$;
create trigger refuse_snapshot before insert on actae.snapshots
for each row execute function pg_temp.refuse_snapshot();
create temp table digest_before as select pg_temp.ledger_digest() as d;
select throws_ok(
    $$select actae.transition_state('tap-tr', 'plan.set', '{"step": 2}', '{"plan": []}', 1)$$,
    'P0001', 'snapshot refused by the test', 'the snapshot write fails');
select is(pg_temp.ledger_digest(), d, 'and the event written before it is gone too')
from digest_before;
drop trigger refuse_snapshot on actae.snapshots;
select is(
    (select cursor from actae.transition_state('tap-tr', 'plan.set', '{"step": 2}', '{}', 1)),
    3::bigint, 'the next transition takes cursor 3: no cursor was burnt');

select * from finish();
rollback;
