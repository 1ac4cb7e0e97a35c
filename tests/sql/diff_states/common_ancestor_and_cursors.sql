-- diff_states finds the nearest common ancestor of two channels and the last event of it
-- each one sees (shared_cursor: where they part): siblings, parent and child, a fork of a
-- fork cut below its parent's fork cursor, a channel with itself, unrelated channels.
begin;
\ir ../helpers.psql
select plan(5);

select pg_temp.record_steps('tap-da', 6);
select actae.fork_channel('tap-da', 4, 'tap-da-x');
select actae.fork_channel('tap-da', 2, 'tap-da-y');
select actae.record_event('tap-da-x', 'e', '{}');
select actae.fork_channel('tap-da-x', 5, 'tap-da-x1');
select pg_temp.record_steps('tap-da-other', 1);

select results_eq(
    $$select common_ancestor, cursor_a, cursor_b, shared_cursor
      from actae.diff_states('tap-da-x', 'tap-da-y')$$,
    $$values ('tap-da', 4::bigint, 2::bigint, 2::bigint)$$, 'two siblings part at cursor 2');
select results_eq(
    $$select common_ancestor, cursor_a, cursor_b, shared_cursor
      from actae.diff_states('tap-da', 'tap-da-x1')$$,
    $$values ('tap-da', 6::bigint, 4::bigint, 4::bigint)$$,
    'an ancestor and a grandchild: the ancestor''s head and the cut the grandchild sees');
select results_eq(
    $$select common_ancestor, cursor_a, cursor_b from actae.diff_states('tap-da-x1', 'tap-da-x')$$,
    $$values ('tap-da-x', 5::bigint, 5::bigint)$$, 'a child and its parent');
select results_eq(
    $$select common_ancestor, shared_cursor, changes from actae.diff_states('tap-da', 'tap-da')$$,
    $$values ('tap-da', 6::bigint, '[]'::jsonb)$$, 'a channel with itself: no change');
select results_eq(
    $$select common_ancestor, shared_cursor from actae.diff_states('tap-da', 'tap-da-other')$$,
    $$values (null::text, null::bigint)$$, 'unrelated channels have no common ancestor');

select * from finish();
rollback;
