-- expected_cursor, when given, must also be the current head: an event recorded since
-- the caller looked makes the transition AC412 even with the right version.
begin;
\ir ../helpers.psql
select plan(4);

select actae.transition_state('tap-cur', 'a', '{}', '{}', 0);
select actae.record_event('tap-cur', 'noise', '{}');
create temp table digest_before as select pg_temp.ledger_digest() as d;

select throws_ok($$select actae.transition_state('tap-cur', 'b', '{}', '{}', 1, 1)$$,
    'AC412', null, 'right version, stale cursor is AC412');
select is(
    pg_temp.error_of($$select actae.transition_state('tap-cur', 'b', '{}', '{}', 1, 1)$$)
        -> 'detail' ->> 'current_cursor',
    '2', 'DETAIL carries the current cursor');
select is(pg_temp.ledger_digest(), d, 'nothing was written') from digest_before;
select results_eq($$select cursor, version from actae.transition_state('tap-cur', 'b', '{}',
        '{}', 1, 2)$$,
    $$values (3::bigint, 2::bigint)$$, 'the current version and cursor succeed');

select * from finish();
rollback;
