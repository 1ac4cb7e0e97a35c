-- purge and what lives beside a channel. A closed, quiet channel whose run is not over (it
-- sleeps) is kept: deleting it would start the run again on an empty ledger and repeat
-- the card charge it already made. Once the run is over, the channel is deleted with its
-- run row, annotations and LangGraph index rows, so a channel later created under the same
-- id (the same LangGraph thread id) starts empty. Timestamps are moved two days back.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
\ir ../langgraph_helpers.psql
select plan(10);

create function pg_temp.age(p_channel text) returns void
language sql
as $$
    update actae.channels set closed_at = closed_at - interval '2 days'
    where channel_id = p_channel;
    update actae.events set recorded_at = recorded_at - interval '2 days'
    where channel_id = p_channel;
    update actae.executions set claimed_at = claimed_at - interval '2 days',
        finished_at = finished_at - interval '2 days'
    where channel_id = p_channel;
    update actae.runs set finished_at = finished_at - interval '2 days'
    where channel_id = p_channel;
$$;

-- A run that charged a card, closed its channel and sleeps for an hour.
select pg_temp.started_claim('tap-pr-sleeps', 'tap-q-pr');
select pg_temp.completed('tap-pr-sleeps', 'charge-card', 'stripe', '{"charged": true}');
select actae.close_channel('tap-pr-sleeps');
select actae.sleep_run('tap-pr-sleeps', pg_temp.token_of('tap-pr-sleeps'), 'nap', 3600);
select pg_temp.age('tap-pr-sleeps');
-- A run that is over, in a closed channel.
select pg_temp.started_claim('tap-pr-done', 'tap-q-pr');
select actae.complete_run('tap-pr-done', pg_temp.token_of('tap-pr-done'), '{"ok": true}');
select actae.close_channel('tap-pr-done');
select pg_temp.age('tap-pr-done');
-- A run that ended within the cutoff (its channel otherwise old and quiet).
select pg_temp.started_claim('tap-pr-recent', 'tap-q-pr');
select actae.complete_run('tap-pr-recent', pg_temp.token_of('tap-pr-recent'), '1');
select actae.close_channel('tap-pr-recent');
update actae.channels set closed_at = closed_at - interval '2 days'
where channel_id = 'tap-pr-recent';
-- A LangGraph thread with a pending write, annotated, closed.
select pg_temp.lg_put('tap-pr-thread', '', 'cp-1', null, '{"owner": "first"}');
select pg_temp.lg_write('tap-pr-thread', '', 'cp-1', 'task', 0, 'messages', '{"value": "hi"}');
select actae.annotate_channel(pg_temp.lg_channel('tap-pr-thread'), 'first thread', '{}',
    null, 0);
select pg_temp.lg_channel('tap-pr-thread') as thread_channel \gset
select actae.close_channel(:'thread_channel');
select pg_temp.age(:'thread_channel');

select actae.purge('1 day', 100000);

select ok(exists (select 1 from actae.channels where channel_id = 'tap-pr-sleeps'),
    'a closed, quiet channel whose run sleeps is kept');
select is((select outcome from actae.claim_execution('tap-pr-sleeps', 'charge-card', 'stripe',
    '{}')), 'replayed', 'so the charge it made still replays');
select is((select status from actae.runs where channel_id = 'tap-pr-sleeps'), 'sleeping',
    'and its run still sleeps');
select ok(not exists (select 1 from actae.channels where channel_id = 'tap-pr-done'),
    'a closed channel whose run is over is deleted');
select ok(not exists (select 1 from actae.runs where channel_id = 'tap-pr-done'),
    'with its run');
select ok(exists (select 1 from actae.runs where channel_id = 'tap-pr-recent'),
    'a run that ended within the cutoff keeps its channel');
select ok(not exists (select 1 from actae.channels where channel_id = :'thread_channel'),
    'the closed LangGraph thread''s channel is deleted');
select is((select count(*) from actae.langgraph_threads where channel_id = :'thread_channel')
    + (select count(*) from actae.langgraph_checkpoints where channel_id = :'thread_channel')
    + (select count(*) from actae.langgraph_writes where channel_id = :'thread_channel')
    + (select count(*) from actae.annotations where channel_id = :'thread_channel'),
    0::bigint, 'with its thread mapping, checkpoints, writes and annotations');

-- The thread id again: a new thread, nothing of the purged one in it.
select pg_temp.lg_put('tap-pr-thread', '', 'cp-9', null, '{"owner": "second"}');
select is((select string_agg(checkpoint_id, ',') from actae.langgraph_list('tap-pr-thread',
    null, null, null, 10)), 'cp-9', 'a thread created later under the id lists its own only');
select is((select count(*) from actae.annotations
    where channel_id = pg_temp.lg_channel('tap-pr-thread')), 0::bigint,
    'and carries no annotations of the purged one');

select * from finish();
rollback;
