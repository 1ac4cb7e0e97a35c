-- list_channels' last_event_at is when the channel's head event was recorded, wherever in
-- its lineage that event is: a fork with no event of its own shows the event it was forked
-- at (its parent's, or further up); a channel at cursor 0 shows none.
begin;
\ir ../helpers.psql
select plan(5);

select pg_temp.record_steps('tap-lle', 3);
select actae.fork_channel('tap-lle', 2, 'tap-lle-f');
select actae.fork_channel('tap-lle-f', 2, 'tap-lle-ff');
select actae.fork_channel('tap-lle', 0, 'tap-lle-zero');
select actae.fork_channel('tap-lle', 3, 'tap-lle-own');
select actae.record_event('tap-lle-own', 'own', '{}');
update actae.events set recorded_at = '2030-01-01T00:00:00Z'::timestamptz + cursor * interval '1 hour'
where channel_id in ('tap-lle', 'tap-lle-own');

create temp table listed as
select channel_id, last_event_at from actae.list_channels(p_max_rows => 1000)
where channel_id like 'tap-lle%';

select is((select last_event_at from listed where channel_id = 'tap-lle'),
    '2030-01-01T03:00:00Z'::timestamptz, 'a root: its own head event');
select is((select last_event_at from listed where channel_id = 'tap-lle-f'),
    '2030-01-01T02:00:00Z'::timestamptz, 'a fork without events: the parent''s event 2');
select is((select last_event_at from listed where channel_id = 'tap-lle-ff'),
    '2030-01-01T02:00:00Z'::timestamptz, 'a fork of that fork: the root''s event 2');
select is((select last_event_at from listed where channel_id = 'tap-lle-own'),
    '2030-01-01T04:00:00Z'::timestamptz, 'a fork with its own events: its own head');
select is((select last_event_at from listed where channel_id = 'tap-lle-zero'),
    null, 'a fork at cursor 0: no event');

select * from finish();
rollback;
