-- Reusing an operation_id with the same event_type and payload (jsonb-equal) replays the
-- original: same cursor and recorded_at, outcome replayed, nothing appended. The guard
-- is not content: a replay ignores a stale expected_cursor.
begin;
\ir ../helpers.psql
select plan(7);

create temp table first as
select * from actae.record_event('tap-op', 'tool.call', '{"a": 1, "b": 2}', 'op-1');
select actae.record_event('tap-op', 'other', '{}');
create temp table digest_before as select pg_temp.ledger_digest() as d;
create temp table again as
select * from actae.record_event('tap-op', 'tool.call', '{ "b": 2, "a": 1 }', 'op-1');

select is(outcome, 'replayed', 'outcome is replayed') from again;
select is(pg_temp.ledger_digest(), d, 'the replay wrote nothing') from digest_before;
select is(a.cursor, f.cursor, 'the original cursor') from again as a, first as f;
select is(a.recorded_at, f.recorded_at, 'the original recorded_at') from again as a, first as f;
select is((select head_cursor from actae.get_channel('tap-op')), 2::bigint,
    'nothing was appended');
select is(
    (select outcome from actae.record_event('tap-op', 'tool.call', '{"a": 1, "b": 2}', 'op-1', 0)),
    'replayed', 'a replay ignores a stale expected_cursor');
select is(
    (select operation_id from actae.list_events('tap-op') where cursor = 1), 'op-1',
    'list_events shows the operation_id');

select * from finish();
rollback;
