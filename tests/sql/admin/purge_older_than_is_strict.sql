-- purge deletes a closed channel only when it was closed more than older_than ago: one
-- closed exactly older_than ago is kept, one closed a microsecond earlier is deleted.
-- Likewise a finished key lives at least key_ttl: exactly key_ttl after it finished it still
-- replays. The database clock is pinned (actae._now replaced inside the rolled-back test).
begin;
\ir ../helpers.psql
select plan(4);

select actae.create_channel('tap-pos');
select pg_temp.pin_clock('2040-01-01 00:00:00+00');
select actae.close_channel('tap-pos');
select actae.set_key_ttl('tap-pos-ttl', interval '1 hour');
select pg_temp.completed('tap-pos-ttl', 'k', 't', '{"r": 1}');

select pg_temp.pin_clock('2040-01-01 01:00:00+00');
select actae.purge(interval '100 years', 100000);
select is((select count(*) from actae.executions where channel_id = 'tap-pos-ttl'), 1::bigint,
    'a key exactly key_ttl after it finished is kept');
select pg_temp.pin_clock('2040-01-01 01:00:00.000001+00');
select actae.purge(interval '100 years', 100000);
select is((select count(*) from actae.executions where channel_id = 'tap-pos-ttl'), 0::bigint,
    'a microsecond later it is deleted');

select pg_temp.pin_clock('2040-01-02 00:00:00+00');
select actae.purge(interval '1 day', 100000);
select ok(exists (select 1 from actae.channels where channel_id = 'tap-pos'),
    'a channel closed exactly older_than ago is kept');
select pg_temp.pin_clock('2040-01-02 00:00:00.000001+00');
select actae.purge(interval '1 day', 100000);
select ok(not exists (select 1 from actae.channels where channel_id = 'tap-pos'),
    'one closed a microsecond longer ago is deleted');

select * from finish();
rollback;
