-- expected_cursor, when given, must be the current head: otherwise AC412
-- (version_conflict) with the current cursor and version as JSON in DETAIL, and nothing
-- is written. 0 is the head of a new channel.
begin;
\ir ../helpers.psql
select plan(7);

select is((select cursor from actae.record_event('tap-guard', 'a', '{}', null, 0)), 1::bigint,
    'expected_cursor 0 appends the first event of a new channel');
select is((select cursor from actae.record_event('tap-guard', 'b', '{}', null, 1)), 2::bigint,
    'expected_cursor equal to the head appends');
create temp table digest_before as select pg_temp.ledger_digest() as d;
select throws_ok($$select actae.record_event('tap-guard', 'c', '{}', null, 1)$$,
    'AC412', null, 'a stale expected_cursor is AC412');
select throws_ok($$select actae.record_event('tap-guard', 'c', '{}', null, 5)$$,
    'AC412', null, 'an expected_cursor beyond the head is AC412');
select is(
    pg_temp.error_of($$select actae.record_event('tap-guard', 'c', '{}', null, 1)$$) -> 'detail',
    '{"channel_id": "tap-guard", "current_cursor": 2, "current_version": 0,
      "expected_cursor": 1, "expected_version": null}'::jsonb,
    'DETAIL carries the current cursor and version as JSON');
select is(pg_temp.ledger_digest(), d, 'nothing was written') from digest_before;
select throws_ok($$select actae.record_event('tap-guard', 'c', '{}', null, -1)$$,
    'AC400', null, 'a negative expected_cursor is AC400');

select * from finish();
rollback;
