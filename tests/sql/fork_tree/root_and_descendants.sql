-- fork_tree, asked about any member of a tree, returns the root and every descendant depth
-- first (siblings by fork cursor), each with its parent, fork cursor, tool policies and
-- depth; another tree's channels never appear.
begin;
\ir ../helpers.psql
select plan(4);

select pg_temp.record_steps('tap-ft', 4);
select actae.fork_channel('tap-ft', 3, 'tap-ft-b', null, '{"charge": "block"}');
select actae.fork_channel('tap-ft', 1, 'tap-ft-a');
select actae.record_event('tap-ft-b', 'x', '{}');
select actae.fork_channel('tap-ft-b', 4, 'tap-ft-b1');
select pg_temp.record_steps('tap-ft-other', 1);

select results_eq(
    $$select channel_id, parent_channel_id, fork_cursor, depth from actae.fork_tree('tap-ft-b1')$$,
    $$values ('tap-ft', null, null, 0), ('tap-ft-a', 'tap-ft', 1::bigint, 1),
        ('tap-ft-b', 'tap-ft', 3, 1), ('tap-ft-b1', 'tap-ft-b', 4, 2)$$,
    'root first, then depth first, siblings by fork cursor');
select set_eq($$select channel_id from actae.fork_tree('tap-ft')$$,
    $$select channel_id from actae.fork_tree('tap-ft-a')$$,
    'the same tree from the root or a leaf');
select is((select tool_policies from actae.fork_tree('tap-ft') where channel_id = 'tap-ft-b1'),
    '{"charge": "block"}'::jsonb, 'a fork of a fork shows the policies it inherited');
select is((select count(*) from actae.fork_tree('tap-ft', 2)), 2::bigint,
    'max_rows bounds the answer');

select * from finish();
rollback;
