-- purge's older_than is between 0 and 1000 years, with no negative part: null, negative,
-- longer (up to interval's largest, far past the earliest timestamp PostgreSQL can hold) or
-- mixed so that it compares as short but has a huge part is AC400 naming older_than (never
-- 22008 timestamp out of range), and nothing is deleted.
begin;
\ir ../helpers.psql
select plan(10);

select actae.record_event('tap-purgelim', 'e', '{}');
select actae.close_channel('tap-purgelim');
update actae.channels set closed_at = closed_at - interval '2 days'
where channel_id = 'tap-purgelim';
update actae.events set recorded_at = recorded_at - interval '2 days'
where channel_id = 'tap-purgelim';
create temp table digest_before as select pg_temp.ledger_digest() as d;

select throws_ok($$select actae.purge('1000000 years', 10)$$, 'AC400',
    'older_than must be between 0 and 1000 years, with no negative part',
    '1000000 years is AC400 naming older_than');
select throws_ok($$select actae.purge('178000000 years', 10)$$, 'AC400',
    'older_than must be between 0 and 1000 years, with no negative part',
    'an interval near its largest is AC400');
select throws_ok($$select actae.purge('2147483647 days', 10)$$, 'AC400',
    'older_than must be between 0 and 1000 years, with no negative part',
    'so is the largest number of days');
select throws_ok($$select actae.purge('1000 years 1 second', 10)$$, 'AC400',
    'older_than must be between 0 and 1000 years, with no negative part',
    'one second over 1000 years is AC400');
select throws_ok($$select actae.purge('1000000 years -359999000 days', 10)$$, 'AC400',
    'older_than must be between 0 and 1000 years, with no negative part',
    'a huge part in an interval that compares as 2 years 9 months is AC400');
select is(pg_temp.error_of($$select actae.purge('1000 years 1 second', 10)$$) -> 'detail',
    '{"argument": "older_than", "older_than": "1000 years 00:00:01"}'::jsonb,
    'DETAIL names the argument and the value given');
select is(pg_temp.error_of($$select actae.purge('-1 day', 10)$$) -> 'detail'
    ->> 'argument', 'older_than', 'a negative interval is AC400 naming older_than');
select is(pg_temp.error_of($$select actae.purge(null, 10)$$) -> 'detail'
    ->> 'argument', 'older_than', 'null is AC400 naming older_than');
select is(pg_temp.ledger_digest(), d, 'nothing was deleted') from digest_before;
select is((select channels from actae.purge('1000 years', 10)), 0::bigint,
    '1000 years is accepted (and keeps a channel closed two days ago)');

select * from finish();
rollback;
