-- A fork at a root checkpoint takes along the subgraph namespaces of that checkpoint's step
-- (metadata parents[''] the checkpoint id), nested ones too, and a persistent subgraph's
-- (checkpointer=True: no task ids in the namespace) of that step or an earlier one, each cut
-- before the first event of a later step's checkpoint, with its mapping and index;
-- namespaces only of later steps stay behind. So a subgraph interrupted in the step resumes
-- where it stopped. (earlier_task_namespaces_stay_behind.sql: what else stays behind.)
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(9);

select pg_temp.lg_put('tap-lg-fs', '', 'cp-1');
select pg_temp.lg_put('tap-lg-fs', 'keep', 'k-1', null, '{"parents": {"": "cp-1"}}');
select pg_temp.lg_put('tap-lg-fs', '', 'cp-2', 'cp-1');
select pg_temp.lg_put('tap-lg-fs', 'sub:1', 's1-1', null, '{"parents": {"": "cp-2"}}');
select pg_temp.lg_put('tap-lg-fs', 'sub:1|in:1', 'i-1', null,
    '{"parents": {"": "cp-2", "sub:1": "s1-1"}}');
select pg_temp.lg_put('tap-lg-fs', 'sub:1', 's1-2', 's1-1', '{"parents": {"": "cp-2"}}');
select pg_temp.lg_write('tap-lg-fs', 'sub:1', 's1-2', 'ask', -3, '__interrupt__',
    '{"value": "ok?"}');
-- The thread moves on: a later step of the same subgraph namespace, and a new one.
select pg_temp.lg_put('tap-lg-fs', '', 'cp-3', 'cp-2');
select pg_temp.lg_put('tap-lg-fs', 'sub:1', 's1-3', 's1-2', '{"parents": {"": "cp-3"}}');
select pg_temp.lg_write('tap-lg-fs', 'sub:1', 's1-2', 'late', 0, 'ch', '{"value": 1}');
select pg_temp.lg_put('tap-lg-fs', 'sub:3', 's3-1', null, '{"parents": {"": "cp-3"}}');

create temp table fork as
select * from actae.langgraph_fork_thread('tap-lg-fs', '', 'cp-2', 'tap-lg-fs2');
select is((select (source_channel_id, outcome)::text from fork),
    ('langgraph:tap-lg-fs', 'forked')::text, 'the result is the root namespace''s fork');
select is(
    (select array_agg(t.checkpoint_ns order by t.checkpoint_ns) from actae.langgraph_threads as t
        where t.thread_id = 'tap-lg-fs2'),
    array['', 'keep', 'sub:1', 'sub:1|in:1'],
    'the namespaces of the checkpoint''s step and a persistent one, not of later steps');
select is((select array_agg(checkpoint_id) from actae.langgraph_list('tap-lg-fs2', 'sub:1')),
    array['s1-2', 's1-1'], 'a subgraph namespace is cut before a later step''s checkpoint');
select is((select pending_writes from actae.langgraph_get_tuple('tap-lg-fs2', 'sub:1')),
    '[["ask", "__interrupt__", {"value": "ok?"}]]'::jsonb,
    'its latest checkpoint keeps the writes recorded before the cut');
select is((select checkpoint_id from actae.langgraph_get_tuple('tap-lg-fs2', 'sub:1|in:1')),
    'i-1', 'a nested namespace comes along');
select is((select checkpoint_id from actae.langgraph_get_tuple('tap-lg-fs2', 'keep')),
    'k-1', 'and a persistent subgraph''s of an earlier step');
select is(
    (select (c.parent_channel_id, c.fork_cursor)::text from actae.channels as c
        where c.channel_id = pg_temp.lg_channel('tap-lg-fs2', 'sub:1')),
    (pg_temp.lg_channel('tap-lg-fs', 'sub:1'), 3)::text,
    'each namespace is a fork_channel of the source namespace at its cut');
select is((select array_agg(checkpoint_id) from actae.langgraph_list('tap-lg-fs2', '')),
    array['cp-2', 'cp-1'], 'the root is cut as before');
select is((select count(*) from actae.langgraph_list('tap-lg-fs')), 9::bigint,
    'the source thread is unchanged');

select * from finish();
rollback;
