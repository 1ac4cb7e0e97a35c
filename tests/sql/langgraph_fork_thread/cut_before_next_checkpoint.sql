-- A fork at checkpoint C holds C, everything recorded before it, and what was recorded
-- after it until the first event of a later checkpoint (late writes of earlier steps, C's
-- own writes); it is a fork_channel at that cursor.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(5);

select pg_temp.lg_put('tap-lg-f', '', 'cp-1');                                    -- 1
select pg_temp.lg_put('tap-lg-f', '', 'cp-2', 'cp-1');                            -- 2
select pg_temp.lg_write('tap-lg-f', '', 'cp-1', 'late', 0, 'ch', '{"value": 1}');  -- 3
select pg_temp.lg_write('tap-lg-f', '', 'cp-2', 'own', 0, 'ch', '{"value": 2}');   -- 4
select pg_temp.lg_put('tap-lg-f', '', 'cp-3', 'cp-2');                            -- 5
select pg_temp.lg_write('tap-lg-f', '', 'cp-2', 'after', 0, 'ch', '{"value": 3}'); -- 6
create temp table fork as
select * from actae.langgraph_fork_thread('tap-lg-f', '', 'cp-2', 'tap-lg-f2');
select is((select (source_channel_id, fork_cursor, outcome)::text from fork),
    ('langgraph:tap-lg-f', 4, 'forked')::text, 'a fork_channel cut before cp-3''s event');
select is((select array_agg(checkpoint_id) from actae.langgraph_list('tap-lg-f2')),
    array['cp-2', 'cp-1'], 'the fork has cp-2 and what came before');
select is((select checkpoint_id from actae.langgraph_get_tuple('tap-lg-f2', '')), 'cp-2',
    'its latest checkpoint is cp-2');
select is((select pending_writes from actae.langgraph_get_tuple('tap-lg-f2', '')),
    '[["own", "ch", {"value": 2}]]'::jsonb, 'with the writes of cp-2 recorded before the cut');
select is((select pending_writes from actae.langgraph_get_tuple('tap-lg-f2', '', 'cp-1')),
    '[["late", "ch", {"value": 1}]]'::jsonb, 'and the late write of cp-1');

select * from finish();
rollback;
