-- set_key_ttl accepts 1 second to 100 years (of 365.25 days: '100 years' read back as
-- 36 500 days by a driver is accepted again) only; a shortening never
-- lowers a stamp a key already has (30 days -> 1 day -> 10 days -> 1 day keeps 30 days);
-- close_channel sets closed_at once, closing again leaves it.
begin;
\ir ../helpers.psql
select plan(9);
set local timezone = 'UTC';

select is(pg_temp.error_of($$select actae.set_key_ttl('tap-z2k-b', interval '0.5 seconds')$$)
    ->> 'sqlstate', 'AC400', 'key_ttl under 1 second is AC400');
select is(pg_temp.error_of($$select actae.set_key_ttl('tap-z2k-b', interval '100 years 1 day')$$)
    ->> 'sqlstate', 'AC400', 'key_ttl over 100 years is AC400');
select is(pg_temp.error_of($$select actae.set_key_ttl('tap-z2k-b', interval '1 second')$$),
    null, '1 second passes');
select is(pg_temp.error_of($$select actae.set_key_ttl('tap-z2k-b', interval '100 years')$$),
    null, '100 years passes');
select is(pg_temp.error_of($$select actae.set_key_ttl('tap-z2k-b', interval '36525 days')$$),
    null, '100 years as days passes');
select is(pg_temp.error_of($$select actae.set_key_ttl('tap-z2k-b', interval '36526 days')$$)
    -> 'detail' ->> 'argument', 'key_ttl', 'a day more is AC400 naming key_ttl');

select actae.set_key_ttl('tap-z2k-s', interval '30 days');
select pg_temp.completed('tap-z2k-s', 'k', 'charge', '{}');
select actae.set_key_ttl('tap-z2k-s', interval '1 day');
select actae.set_key_ttl('tap-z2k-s', interval '10 days');
select actae.set_key_ttl('tap-z2k-s', interval '1 day');
select is(
    (select retain_until - finished_at from actae.executions where channel_id = 'tap-z2k-s'),
    interval '30 days', 'a later shortening keeps the longer stamp the key has');

select actae.record_event('tap-z2k-c', 'step', '{}');
select actae.close_channel('tap-z2k-c');
select closed_at as first_closed from actae.channels where channel_id = 'tap-z2k-c' \gset
select actae._set_test_clock(interval '1 hour');
select is((actae.close_channel('tap-z2k-c')).closed_at, :'first_closed'::timestamptz,
    'closing again returns the first closed_at');
select is((select closed_at from actae.channels where channel_id = 'tap-z2k-c'),
    :'first_closed'::timestamptz, 'and keeps it');

select * from finish();
rollback;
