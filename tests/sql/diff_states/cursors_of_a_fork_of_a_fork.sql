-- diff_states between a fork of a fork and the root: the root is the common ancestor, and
-- the grandchild sees it only up to the earliest cut on its way up (its own fork cursor
-- when that is inside the root's events, not its parent's later one).
begin;
\ir ../helpers.psql
select plan(2);

select pg_temp.record_steps('tap-dgg', 6);
select actae.fork_channel('tap-dgg', 5, 'tap-dgg-c');
select actae.fork_channel('tap-dgg-c', 2, 'tap-dgg-g');
select actae.record_event('tap-dgg-g', 'own', '{}');

select results_eq(
    $$select common_ancestor, cursor_a, cursor_b, shared_cursor
      from actae.diff_states('tap-dgg-g', 'tap-dgg')$$,
    $$values ('tap-dgg', 2::bigint, 6::bigint, 2::bigint)$$,
    'the grandchild sees the root up to cursor 2');
select results_eq(
    $$select common_ancestor, cursor_a, cursor_b from actae.diff_states('tap-dgg-c', 'tap-dgg-g')$$,
    $$values ('tap-dgg-c', 5::bigint, 2::bigint)$$,
    'and its parent up to its fork cursor');

select * from finish();
rollback;
