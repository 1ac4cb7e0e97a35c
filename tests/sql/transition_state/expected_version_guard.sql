-- expected_version must be the current state version: otherwise AC412 (version_conflict)
-- with the current version and cursor as JSON in DETAIL, and nothing is written.
begin;
\ir ../helpers.psql
select plan(6);

select actae.transition_state('tap-ver', 'a', '{}', '{"n": 1}', 0);
select actae.transition_state('tap-ver', 'b', '{}', '{"n": 2}', 1);
create temp table digest_before as select pg_temp.ledger_digest() as d;

select throws_ok($$select actae.transition_state('tap-ver', 'c', '{}', '{"n": 3}', 1)$$,
    'AC412', null, 'a stale expected_version is AC412');
select throws_ok($$select actae.transition_state('tap-ver', 'c', '{}', '{"n": 3}', 7)$$,
    'AC412', null, 'an expected_version from the future is AC412');
select is(
    pg_temp.error_of($$select actae.transition_state('tap-ver', 'c', '{}', '{"n": 3}', 1)$$)
        -> 'detail',
    '{"channel_id": "tap-ver", "current_version": 2, "current_cursor": 2,
      "expected_version": 1, "expected_cursor": null}'::jsonb,
    'DETAIL carries the current version and cursor');
select is(pg_temp.ledger_digest(), d, 'nothing was written') from digest_before;
select is((select version from actae.transition_state('tap-ver', 'c', '{}', '{"n": 3}', 2)),
    3::bigint, 'the current version succeeds');
select is((select state from actae.get_state('tap-ver')), '{"n": 3}'::jsonb,
    'and its state is the latest');

select * from finish();
rollback;
