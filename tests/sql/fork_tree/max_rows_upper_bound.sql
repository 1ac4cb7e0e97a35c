-- The console reads' row caps are inclusive: fork_tree max_rows, diff_states max_changes and
-- decision_trail max_results accept 10000 and refuse 10001 (AC400 naming the argument).
begin;
\ir ../helpers.psql
select plan(6);

select pg_temp.record_steps('tap-cub', 1);
select is(pg_temp.error_of($$select * from actae.fork_tree('tap-cub', 10000)$$), null,
    'fork_tree max_rows 10000 is accepted');
select is(pg_temp.error_of($$select * from actae.fork_tree('tap-cub', 10001)$$)
    -> 'detail' ->> 'argument', 'max_rows', 'fork_tree max_rows 10001 is AC400');
select is(pg_temp.error_of($$select actae.diff_states('tap-cub', 'tap-cub', 10000)$$), null,
    'diff_states max_changes 10000 is accepted');
select is(pg_temp.error_of($$select actae.diff_states('tap-cub', 'tap-cub', 10001)$$)
    -> 'detail' ->> 'argument', 'max_changes', 'diff_states max_changes 10001 is AC400');
select is(pg_temp.error_of($$select actae.decision_trail('tap-cub', 1, 10000)$$), null,
    'decision_trail max_results 10000 is accepted');
select is(pg_temp.error_of($$select actae.decision_trail('tap-cub', 1, 10001)$$)
    -> 'detail' ->> 'argument', 'max_results', 'decision_trail max_results 10001 is AC400');

select * from finish();
rollback;
