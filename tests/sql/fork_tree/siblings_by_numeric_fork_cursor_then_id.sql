-- fork_tree orders siblings by fork cursor as a number (a fork at cursor 2 before one at
-- cursor 10), then by channel_id among forks at the same cursor (whatever the ids sort like
-- against the cursors).
begin;
\ir ../helpers.psql
select plan(1);

select pg_temp.record_steps('tap-fsn', 10);
select actae.fork_channel('tap-fsn', 10, 'tap-fsn-a');
select actae.fork_channel('tap-fsn', 2, 'tap-fsn-z');
select actae.fork_channel('tap-fsn', 2, 'tap-fsn-y');
select actae.fork_channel('tap-fsn', 9, 'tap-fsn-b');

select results_eq(
    $$select channel_id, fork_cursor from actae.fork_tree('tap-fsn')$$,
    $$values ('tap-fsn', null::bigint), ('tap-fsn-y', 2), ('tap-fsn-z', 2), ('tap-fsn-b', 9),
        ('tap-fsn-a', 10)$$,
    'siblings by numeric fork cursor, then channel_id');

select * from finish();
rollback;
