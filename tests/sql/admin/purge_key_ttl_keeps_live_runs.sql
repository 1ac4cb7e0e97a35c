-- purge and a channel's key lifetime (set_key_ttl) while the channel's run is not over. The
-- agent of a queued, running, sleeping or waiting run is re-executed from the top when it
-- resumes and must replay the tool calls it already made: purge keeps every key of such a
-- channel, however old, and deletes them once the run is over (as the closed-channel path
-- keeps a channel whose run is not over). The database clock moves a day on; rolled back.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(10);

-- A run that charged a card and sleeps for a day.
select pg_temp.started_claim('tap-pkt-sleeps', 'tap-q-pkt');
select actae.set_key_ttl('tap-pkt-sleeps', interval '1 hour');
select pg_temp.completed('tap-pkt-sleeps', 'charge-card', 'stripe', '{"charged": 500}');
select actae.sleep_run('tap-pkt-sleeps', pg_temp.token_of('tap-pkt-sleeps'), 'cool-off', 86400);
-- One that waits for an approval.
select pg_temp.started_claim('tap-pkt-waits', 'tap-q-pkt');
select actae.set_key_ttl('tap-pkt-waits', interval '1 hour');
select pg_temp.completed('tap-pkt-waits', 'charge-card', 'stripe', '{"charged": 500}');
select actae.wait_for_event('tap-pkt-waits', pg_temp.token_of('tap-pkt-waits'), 'ok',
    'approval', 86400 * 2);
-- One still running (its worker alive and heartbeating).
select pg_temp.started_claim('tap-pkt-runs', 'tap-q-pkt');
select actae.set_key_ttl('tap-pkt-runs', interval '1 hour');
select pg_temp.completed('tap-pkt-runs', 'charge-card', 'stripe', '{"charged": 500}');
-- One queued again for a retry after a failed attempt.
select pg_temp.started_claim('tap-pkt-retry', 'tap-q-pkt-retry');
select actae.set_key_ttl('tap-pkt-retry', interval '1 hour');
select pg_temp.completed('tap-pkt-retry', 'charge-card', 'stripe', '{"charged": 500}');
select actae.fail_run('tap-pkt-retry', pg_temp.token_of('tap-pkt-retry'), 'timeout', true);
-- One whose run is over.
select pg_temp.started_claim('tap-pkt-done', 'tap-q-pkt');
select actae.set_key_ttl('tap-pkt-done', interval '1 hour');
select pg_temp.completed('tap-pkt-done', 'charge-card', 'stripe', '{"charged": 500}');
select actae.complete_run('tap-pkt-done', pg_temp.token_of('tap-pkt-done'), '{"ok": true}');

-- 25 hours later, past every key's lifetime, the routine purge runs.
select actae._set_test_clock(interval '25 hours');
update actae.runs set lease_expires_at = actae._now() + interval '1 minute',
    due_at = actae._now() + interval '1 minute'
where channel_id = 'tap-pkt-runs';
select is((select executions from actae.purge(interval '30 days', 1000)), 1::bigint,
    'purge deletes one expired key: the one of the run that is over');

select is(pg_temp.probe_claim('tap-pkt-sleeps', 'charge-card', 'stripe'), 'replayed',
    'a sleeping run''s completed charge still replays');
select is(pg_temp.probe_claim('tap-pkt-waits', 'charge-card', 'stripe'), 'replayed',
    'a waiting run''s completed charge still replays');
select is(pg_temp.probe_claim('tap-pkt-runs', 'charge-card', 'stripe'), 'replayed',
    'a running run''s completed charge still replays');
select is(pg_temp.probe_claim('tap-pkt-retry', 'charge-card', 'stripe'), 'replayed',
    'a queued (retrying) run''s completed charge still replays');
select is((select count(*) from actae.executions where channel_id = 'tap-pkt-done'), 0::bigint,
    'the key of the run that is over is deleted');

-- The sleeping run wakes and its agent, re-executed from the top, charges again: replayed.
create temp table woken as select * from actae.claim_run('tap-q-pkt', 'w2');
select is((select channel_id || ':' || wake_reason from woken), 'tap-pkt-sleeps:timer',
    'the sleeping run wakes');
select is((actae.claim_execution('tap-pkt-sleeps', 'charge-card', 'stripe', '{}')).result,
    '{"charged": 500}'::jsonb, 'and its charge replays the stored result: not charged again');

-- Once that run is over, its keys live by the channel's lifetime again.
select actae.complete_run('tap-pkt-sleeps', (select claim_token from woken), '{"ok": true}');
select actae._set_test_clock(interval '27 hours');
select is((select executions from actae.purge(interval '30 days', 1000)), 1::bigint,
    'after the run is over, purge deletes its expired key');
select is(pg_temp.probe_claim('tap-pkt-sleeps', 'charge-card', 'stripe'), 'claimed',
    'which is then a new operation');

select * from finish();
rollback;
