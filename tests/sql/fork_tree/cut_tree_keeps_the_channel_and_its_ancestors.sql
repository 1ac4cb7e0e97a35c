-- fork_tree cut at max_rows still holds the channel asked about and its ancestors, in depth
-- first order, with the first other nodes that fit beside them; when the channel and its
-- ancestors alone are more than max_rows, the nearest ones are kept.
begin;
\ir ../helpers.psql
select plan(5);

select pg_temp.record_steps('tap-ftc', 2);
select actae.fork_channel('tap-ftc', 1, 'tap-ftc-f' || lpad(i::text, 2, '0'))
from generate_series(1, 12) as i;
select actae.fork_channel('tap-ftc-f12', 1, 'tap-ftc-f12-g');

select results_eq(
    $$select channel_id, depth from actae.fork_tree('tap-ftc-f12-g', 5)$$,
    $$values ('tap-ftc', 0), ('tap-ftc-f01', 1), ('tap-ftc-f02', 1), ('tap-ftc-f12', 1),
        ('tap-ftc-f12-g', 2)$$,
    'a fork past the cut comes with its parent and root, depth first, in max_rows rows');
select results_eq(
    $$select channel_id from actae.fork_tree('tap-ftc-f03', 4)$$,
    $$values ('tap-ftc'), ('tap-ftc-f01'), ('tap-ftc-f02'), ('tap-ftc-f03')$$,
    'a channel inside the cut: the same first rows as before');
select results_eq(
    $$select channel_id from actae.fork_tree('tap-ftc-f12-g', 2)$$,
    $$values ('tap-ftc-f12'), ('tap-ftc-f12-g')$$,
    'more ancestors than max_rows: the nearest ones');
select results_eq(
    $$select channel_id from actae.fork_tree('tap-ftc-f12-g', 1)$$,
    $$values ('tap-ftc-f12-g')$$,
    'max_rows 1: the channel itself');
select is((select count(*) from actae.fork_tree('tap-ftc-f12-g')), 14::bigint,
    'an uncut tree holds every node once');

select * from finish();
rollback;
