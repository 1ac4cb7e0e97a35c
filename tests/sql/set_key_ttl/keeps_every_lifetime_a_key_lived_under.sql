-- A finished key keeps every lifetime it lived under, however the channel's key_ttl moved
-- in between: a change that would end its life sooner stamps the end of the life it had,
-- unless an earlier stamp goes further (10 days -> 1 day -> 30 days -> 1 day keeps 30
-- days; a lifetime cleared in between keeps it forever). Lifetimes are compared key by key:
-- '1 month' is shorter than '30 days' for a key finished on 31 January. A reclaim clears
-- the stamp: the key's next finish lives by the lifetime of then.
begin;
\ir ../helpers.psql
select plan(8);
set local timezone = 'UTC';

select actae.set_key_ttl('tap-kl-a', interval '10 days');
select pg_temp.completed('tap-kl-a', 'k', 'charge', '{}');
select actae.set_key_ttl('tap-kl-a', interval '1 day');
select actae.set_key_ttl('tap-kl-a', interval '30 days');
select actae.set_key_ttl('tap-kl-a', interval '1 day');
select is(
    (select retain_until - finished_at from actae.executions where channel_id = 'tap-kl-a'),
    interval '30 days', 'shortened, lengthened, shortened again: the key keeps 30 days');

select actae.set_key_ttl('tap-kl-b', interval '10 days');
select pg_temp.completed('tap-kl-b', 'k', 'charge', '{}');
select actae.set_key_ttl('tap-kl-b', interval '1 day');
select actae.set_key_ttl('tap-kl-b', null);
select actae.set_key_ttl('tap-kl-b', interval '1 day');
select is(
    (select retain_until from actae.executions where channel_id = 'tap-kl-b'),
    'infinity'::timestamptz, 'a lifetime cleared in between: the key lives on');

select actae._set_test_clock(interval '29 days');
select actae.purge(interval '400 days', 1000);
select is(
    (select count(*) from actae.executions where channel_id in ('tap-kl-a', 'tap-kl-b')),
    2::bigint, 'neither key is purged 29 days later');
select actae._set_test_clock(interval '31 days');
select actae.purge(interval '400 days', 1000);
select is(
    (select string_agg(channel_id, ',') from actae.executions
     where channel_id in ('tap-kl-a', 'tap-kl-b')),
    'tap-kl-b', 'after 30 days the first one is, as its longest lifetime says');

-- A key finished on 31 January at noon: 1 month is 28 days for it, 30 days is 30.
select actae._set_test_clock(timestamptz '2027-01-31 12:00:00+00' - clock_timestamp());
select actae.set_key_ttl('tap-kl-m', interval '30 days');
select pg_temp.completed('tap-kl-m', 'k', 'charge', '{}');
select actae.set_key_ttl('tap-kl-m', interval '1 month');
select is(
    (select retain_until - finished_at from actae.executions where channel_id = 'tap-kl-m'),
    interval '30 days', '30 days -> 1 month in February: the key keeps its 30 days');

-- '24 hours' across the change to daylight saving time in New York is 24 elapsed hours,
-- as purge counts them, not a calendar day (23 hours there).
set local timezone = 'America/New_York';
select actae._set_test_clock(timestamptz '2026-03-07 17:00:00+00' - clock_timestamp());
select actae.set_key_ttl('tap-kl-dst', interval '24 hours');
select pg_temp.completed('tap-kl-dst', 'k', 'charge', '{}');
select actae.set_key_ttl('tap-kl-dst', interval '23 hours 30 minutes');
select is(
    (select retain_until - finished_at from actae.executions
     where channel_id = 'tap-kl-dst'),
    interval '24 hours', '24 hours across a daylight saving change keep 24 hours');
set local timezone = 'UTC';

-- Failed retryably, stamped (no lifetime before: forever), then reclaimed and completed.
select actae._set_test_clock(null);
create temp table first_try as
select * from actae.claim_execution('tap-kl-r', 'k', 'charge', '{}');
select actae.fail_execution(execution_id, 'timeout', claim_token, true) from first_try;
select actae.set_key_ttl('tap-kl-r', interval '1 day');
select is((select retain_until from actae.executions where channel_id = 'tap-kl-r'),
    'infinity'::timestamptz, 'the failed attempt is stamped');
select actae.complete_execution(c.execution_id, c.claim_token, '"ok"')
from actae.claim_execution('tap-kl-r', 'k', 'charge', '{}') as c;
select is(
    (select row(status, retain_until)::text from actae.executions
     where channel_id = 'tap-kl-r'),
    '(completed,)', 'a reclaim clears the stamp: the completion lives by 1 day');

select * from finish();
rollback;
