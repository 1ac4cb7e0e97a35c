-- A fork at cursor N inherits events 1..N exactly as the source recorded them and the
-- latest snapshot at or before N; its head is N and it records its parent and cursor.
begin;
\ir ../helpers.psql
select plan(9);

select actae.record_event('tap-src', 'user', '{"n": 1}');                 -- 1
select actae.transition_state('tap-src', 'plan', '{"n": 2}', '{"s": 1}', 0); -- 2, v1
select actae.record_event('tap-src', 'tool', '{"n": 3}');                 -- 3
select actae.transition_state('tap-src', 'plan', '{"n": 4}', '{"s": 2}', 1); -- 4, v2
select actae.record_event('tap-src', 'tool', '{"n": 5}');                 -- 5
create temp table receipt as select * from actae.fork_channel('tap-src', 3, 'tap-fork');

select results_eq(
    $$select * from actae.list_events('tap-fork')$$,
    $$select * from actae.list_events('tap-src') where cursor <= 3$$,
    'the fork lists the source''s events 1..3, identical in every column');
select results_eq($$select version, cursor, state from actae.get_state('tap-fork')$$,
    $$values (1::bigint, 2::bigint, '{"s": 1}'::jsonb)$$,
    'its state is the latest snapshot at or before cursor 3');
select results_eq(
    $$select head_cursor, state_version, parent_channel_id, fork_cursor
      from actae.get_channel('tap-fork')$$,
    $$values (3::bigint, 1::bigint, 'tap-src'::text, 3::bigint)$$,
    'head 3, version 1, parent tap-src, fork cursor 3');
select results_eq($$select version, cursor, state from actae.get_state('tap-fork', 1)$$,
    $$values (1::bigint, 2::bigint, '{"s": 1}'::jsonb)$$, 'inherited version 1 is readable');
select throws_ok($$select actae.get_state('tap-fork', 2)$$, 'AC404', null,
    'the source''s version 2 (after the cut) does not exist in the fork');
select is((select count(*) from actae.events where channel_id = 'tap-fork'), 0::bigint,
    'nothing was copied: the fork has no event rows of its own');
select results_eq($$select cursor, version from actae.transition_state('tap-fork', 'plan',
        '{}', '{"s": "fork"}', 1, 3)$$,
    $$values (4::bigint, 2::bigint)$$,
    'the fork continues at cursor 4, version 2 with guards against its own head');
select results_eq($$select version, cursor, state from actae.get_state('tap-fork', 2)$$,
    $$values (2::bigint, 4::bigint, '{"s": "fork"}'::jsonb)$$,
    'the fork''s version 2 is its own, not the source''s');
select results_eq($$select version, cursor, state from actae.get_state('tap-src', 2)$$,
    $$values (2::bigint, 4::bigint, '{"s": 2}'::jsonb)$$,
    'and the source''s version 2 is still the source''s');

select * from finish();
rollback;
