-- timeline interleaves a channel's events with the points of its tool executions in clock
-- order: a completion sits between the events it happened between (its recorded clock),
-- claims, reclaims and failures after the last event before them; an ambiguous reclaim
-- says so and a failure carries its error.
begin;
\ir ../helpers.psql
\ir ../console_helpers.psql
select plan(8);

select pg_temp.story('tap-tl');

select results_eq(
    $$select kind, cursor, coalesce(event_type, key_name) from actae.timeline('tap-tl')$$,
    $$values ('event', 1::bigint, 'started'), ('claimed', 1, 'search:1'),
        ('completed', 1, 'search:1'), ('event', 2, 'planned'), ('claimed', 2, 'charge:1'),
        ('reclaimed', 2, 'charge:1'), ('failed', 2, 'charge:1'), ('event', 3, 'gave_up')$$,
    'events and execution points in the order they happened');
select is(
    (select array_agg(clock order by clock) from actae.timeline('tap-tl') where kind = 'event'),
    (select array_agg(clock order by cursor) from actae.events where channel_id = 'tap-tl'),
    'an event row carries the clock the event was recorded at');
select is(
    (select clock from actae.timeline('tap-tl') where kind = 'completed'),
    (select completed_clock from actae.executions
     where channel_id = 'tap-tl' and key_name = 'search:1'),
    'a completion carries the clock it recorded');
select is(
    (select array_agg(clock order by clock) from actae.timeline('tap-tl')),
    (select array_agg(clock) from (select clock from actae.timeline('tap-tl')) as t),
    'rows come in clock order');
select results_eq(
    $$select attempt, ambiguous from actae.timeline('tap-tl') where kind = 'reclaimed'$$,
    $$values (2, true)$$, 'the reclaim after a lapsed lease is attempt 2, ambiguous');
select results_eq(
    $$select error, retryable, status from actae.timeline('tap-tl') where kind = 'failed'$$,
    $$values ('card declined'::text, false, 'failed'::text)$$,
    'the failure carries its error and is final');
select results_eq(
    $$select payload, result from actae.timeline('tap-tl') where kind in ('event', 'completed')
      and coalesce(event_type, '') <> 'planned' and coalesce(event_type, '') <> 'gave_up'$$,
    $$values ('{"goal": "refund"}'::jsonb, null::jsonb), (null, '{"hits": 3}')$$,
    'payloads and results are returned');
select is(
    (select count(*) from actae.timeline('tap-tl') where source_channel_id <> 'tap-tl'),
    0::bigint, 'every row of a root channel comes from that channel');

select * from finish();
rollback;
