-- set_key_ttl never shortens the life of a key that already finished (issue 14 F2): an
-- agent sets a victim channel's key_ttl to 1 second, the routine purge runs, and the
-- completed charge still replays. A key finished after the change lives by the new lifetime,
-- and lengthening the lifetime still lengthens old keys.
begin;
\ir ../helpers.psql
select plan(8);

select actae.set_key_ttl('tap-f2', interval '30 days');
select pg_temp.completed('tap-f2', 'charge:order-4471', 'charge', '{"charge_id": "ch_1"}');
select pg_temp.completed('tap-f2', 'never-ttl', 'search', '{}');
select actae.set_key_ttl('tap-f2', interval '1 second');
select is(
    (select retain_until - finished_at from actae.executions
     where channel_id = 'tap-f2' and key_name = 'charge:order-4471'),
    interval '30 days', 'shortening stamps the lifetime the key finished under');
select pg_temp.completed('tap-f2', 'after-change', 'search', '{}');

-- One hour later (the database clock moves; rolled back with the test).
select actae._set_test_clock(interval '1 hour');
select lives_ok($$select actae.purge(interval '30 days', 1000)$$, 'the routine purge runs');
select is(
    (select string_agg(key_name, ',' order by key_name) from actae.executions
     where channel_id = 'tap-f2'),
    'charge:order-4471,never-ttl',
    'purge keeps the keys that finished under 30 days, deletes the one finished under 1 s');
select is(
    (actae.claim_execution('tap-f2', 'charge:order-4471', 'charge', '{}')).outcome,
    'replayed', 'the completed charge replays: it is not charged again');

-- A channel with no lifetime: its keys were to live as long as the channel.
select actae.set_key_ttl('tap-f2-forever', interval '1 hour');
select actae.set_key_ttl('tap-f2-forever', null);
select pg_temp.completed('tap-f2-forever', 'k', 'charge', '{}');
select actae.set_key_ttl('tap-f2-forever', interval '1 second');
select is(
    (select retain_until from actae.executions where channel_id = 'tap-f2-forever'),
    'infinity'::timestamptz, 'a key finished with no lifetime keeps living');

-- Lengthening does not need a stamp, and a later shortening keeps the longer one.
select actae.set_key_ttl('tap-f2-long', interval '2 hours');
select pg_temp.completed('tap-f2-long', 'k', 'charge', '{}');
select actae.set_key_ttl('tap-f2-long', interval '3 hours');
select is(
    (select retain_until from actae.executions where channel_id = 'tap-f2-long'),
    null, 'lengthening stamps nothing');
select actae._set_test_clock(interval '150 minutes');
select actae.purge(interval '30 days', 1000);
select is((select count(*) from actae.executions where channel_id = 'tap-f2-long'), 1::bigint,
    'a key lives by the longer lifetime after it was lengthened');
select actae._set_test_clock(interval '4 hours');
select actae.purge(interval '30 days', 1000);
select is((select count(*) from actae.executions where channel_id = 'tap-f2-long'), 0::bigint,
    'and is purged once that lifetime has passed');

select * from finish();
rollback;
