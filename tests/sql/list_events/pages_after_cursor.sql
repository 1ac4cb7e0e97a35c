-- list_events returns events after after_cursor (exclusive) in cursor order, at most
-- max_events, with every column a reader needs.
begin;
\ir ../helpers.psql
select plan(5);

select pg_temp.record_steps('tap-le', 5);
select results_eq($$select cursor from actae.list_events('tap-le')$$,
    $$values (1::bigint), (2), (3), (4), (5)$$, 'all events by default, in order');
select results_eq($$select cursor from actae.list_events('tap-le', 2)$$,
    $$values (3::bigint), (4), (5)$$, 'after_cursor is exclusive');
select results_eq($$select cursor from actae.list_events('tap-le', 1, 2)$$,
    $$values (2::bigint), (3)$$, 'max_events caps the page');
select is_empty($$select * from actae.list_events('tap-le', 5)$$,
    'nothing after the head');
select results_eq(
    $$select cursor, event_type, payload, operation_id, recorded_at, chain_sha256
      from actae.list_events('tap-le', 3, 1)$$,
    $$select cursor, event_type, payload, operation_id, recorded_at, chain_sha256
      from actae.events where channel_id = 'tap-le' and cursor = 4$$,
    'each row carries cursor, event_type, payload, operation_id, recorded_at, chain_sha256');

select * from finish();
rollback;
