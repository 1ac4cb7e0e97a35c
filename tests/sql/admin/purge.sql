-- actae.purge: what is deleted (closed, quiet channels whole; expired keys) and what is
-- kept (open channels, recent activity, anything in flight, prefixes a live fork inherits).
-- Timestamps are moved two days back instead of waiting; purge runs with older_than 1 day.
begin;
\ir ../helpers.psql
select plan(24);

create function pg_temp.age_channel(p_channel text) returns void
language sql
as $$
    update actae.channels set closed_at = closed_at - interval '2 days',
        created_at = created_at - interval '2 days'
    where channel_id = p_channel;
    update actae.events set recorded_at = recorded_at - interval '2 days'
    where channel_id = p_channel;
    update actae.executions set claimed_at = claimed_at - interval '2 days',
        finished_at = finished_at - interval '2 days', created_at = created_at - interval '2 days'
    where channel_id = p_channel;
$$;

create function pg_temp.exists_channel(p_channel text) returns boolean
language sql
as $$ select exists (select 1 from actae.channels where channel_id = p_channel) $$;

create function pg_temp.rows_of(p_channel text) returns bigint
language sql
as $$
    select (select count(*) from actae.events where channel_id = p_channel)
        + (select count(*) from actae.snapshots where channel_id = p_channel)
        + (select count(*) from actae.operations where channel_id = p_channel)
        + (select count(*) from actae.executions where channel_id = p_channel)
$$;

-- A closed, quiet channel: events, a snapshot, an operation id and an execution.
select pg_temp.record_steps('tap-purge-old', 2);
select actae.transition_state('tap-purge-old', 't', '{}', '{"s": 1}', 0, null, 'op-1');
select pg_temp.completed('tap-purge-old', 'k', 'search', '{"hits": 1}');
select actae.close_channel('tap-purge-old');
select pg_temp.age_channel('tap-purge-old');
-- Closed long ago but written to yesterday... i.e. within older_than: kept.
select pg_temp.record_steps('tap-purge-busy', 1);
select actae.close_channel('tap-purge-busy');
update actae.channels set closed_at = closed_at - interval '2 days'
where channel_id = 'tap-purge-busy';
-- Closed and quiet but an execution is in flight: kept.
select actae.claim_execution('tap-purge-inflight', 'k', 'charge', '{}');
select actae.close_channel('tap-purge-inflight');
select pg_temp.age_channel('tap-purge-inflight');
-- Open and old: kept.
select pg_temp.record_steps('tap-purge-open', 1);
select pg_temp.age_channel('tap-purge-open');
-- Closed and quiet, but a live fork inherits its prefix: kept until the fork is purged.
select pg_temp.record_steps('tap-purge-parent', 3);
select actae.fork_channel('tap-purge-parent', 2, 'tap-purge-child');
select actae.close_channel('tap-purge-parent');
select pg_temp.age_channel('tap-purge-parent');

create temp table first as select * from actae.purge('1 day', 100000);
select ok(not pg_temp.exists_channel('tap-purge-old'), 'a closed, quiet channel is deleted');
select is(pg_temp.rows_of('tap-purge-old'), 0::bigint,
    'with its events, snapshots, operation ids and executions');
select cmp_ok(channels, '>=', 1::bigint, 'purge reports the channels it deleted') from first;
select cmp_ok(events, '>=', 3::bigint, 'and the events') from first;
select ok(pg_temp.exists_channel('tap-purge-busy'),
    'a closed channel with activity within older_than is kept');
select ok(pg_temp.exists_channel('tap-purge-inflight'),
    'a closed channel with an execution in flight is kept');
select is(pg_temp.rows_of('tap-purge-inflight'), 1::bigint, 'and its execution too');
select ok(pg_temp.exists_channel('tap-purge-open'), 'an open channel is kept');
select is(pg_temp.rows_of('tap-purge-open'), 1::bigint, 'with its events');
select ok(pg_temp.exists_channel('tap-purge-parent'),
    'a closed channel a live fork inherits from is kept');
select is((select count(*) from actae.list_events('tap-purge-child')), 2::bigint,
    'the fork still reads its inherited prefix');

-- Once the fork is closed and purged, its ancestor goes too (the next batch).
select actae.close_channel('tap-purge-child');
update actae.channels set closed_at = closed_at - interval '2 days'
where channel_id = 'tap-purge-child';
select actae.purge('1 day', 100000);
select ok(not pg_temp.exists_channel('tap-purge-child'), 'the closed fork is deleted');
select actae.purge('1 day', 100000);
select ok(not pg_temp.exists_channel('tap-purge-parent'),
    'then the ancestor no live fork inherits from');

-- A purged channel id is new again: cursor 1, no operation id to replay.
select is((select cursor from actae.record_event('tap-purge-old', 'step', '{}', 'op-1')),
    1::bigint, 'writing to a purged channel id starts a new channel at cursor 1');

-- Key lifetime: finished keys past key_ttl are deleted; a purged key is a new operation.
select actae.set_key_ttl('tap-ttl', interval '1 hour');
select pg_temp.completed('tap-ttl', 'old', 'search', '{"r": 1}');
select pg_temp.completed('tap-ttl', 'fresh', 'search', '{"r": 2}');
select actae.claim_execution('tap-ttl', 'running', 'search', '{}');
update actae.executions set finished_at = finished_at - interval '2 hours',
    claimed_at = claimed_at - interval '2 hours'
where channel_id = 'tap-ttl' and key_name in ('old', 'running');
select pg_temp.expire(execution_id) from actae.executions
where channel_id = 'tap-ttl' and key_name = 'running';
select actae.purge('100 years', 100000);
select set_eq(
    $$ select key_name from actae.executions where channel_id = 'tap-ttl' $$,
    array['fresh', 'running'],
    'only the finished key past its lifetime is deleted (never one in flight)'
);
select is(
    (select outcome || '/' || attempt
     from actae.claim_execution('tap-ttl', 'old', 'search', '{}')),
    'claimed/1', 'a key purged after its lifetime is a new operation'
);
select is(
    (select outcome from actae.claim_execution('tap-ttl', 'fresh', 'search', '{}')),
    'replayed', 'a key within its lifetime still replays'
);

-- A key a live fork inherits is kept past its lifetime.
select actae.set_key_ttl('tap-ttl-src', interval '1 hour');
select pg_temp.completed('tap-ttl-src', 'paid', 'charge', '{"id": "ch_1"}');
select pg_temp.record_steps('tap-ttl-src', 1);
select actae.fork_channel('tap-ttl-src', 1, 'tap-ttl-fork');
update actae.executions set finished_at = finished_at - interval '2 hours'
where channel_id = 'tap-ttl-src';
select actae.purge('100 years', 100000);
select is(
    (select outcome from actae.claim_execution('tap-ttl-fork', 'paid', 'charge', '{}')),
    'replayed', 'a key a live fork inherits is not purged'
);

-- Batches are bounded; more says whether to call again.
select actae.set_key_ttl('tap-batch', interval '1 second');
select pg_temp.completed('tap-batch', 'k' || i, 'search', '{}') from generate_series(1, 3) as i;
update actae.executions set finished_at = finished_at - interval '1 hour'
where channel_id = 'tap-batch';
select is((select executions || '/' || more from actae.purge('100 years', 2)),
    '2/true', 'a batch deletes at most batch_size rows and says more');
select is((select executions || '/' || more from actae.purge('100 years', 2)),
    '1/false', 'the next batch finishes');

select is(pg_temp.error_of($$ select actae.purge('-1 day') $$) ->> 'sqlstate', 'AC400',
    'a negative older_than is AC400');
select is(pg_temp.error_of($$ select actae.purge('1 day', 0) $$) ->> 'sqlstate', 'AC400',
    'batch_size 0 is AC400');

set local role actae_agent;
select throws_ok($$ select actae.purge('1 day') $$, '42501', null,
    'actae_agent cannot purge');
reset role;
set local role actae_operator;
select lives_ok($$ select actae.purge('100 years') $$, 'actae_operator can purge');
reset role;

select * from finish();
rollback;
