-- purge reads its candidates a page at a time (100, oldest closed first, then by id): a
-- first page (and more) of closed channels it must keep (each with a claim in flight) does
-- not stop it from reaching the purgeable ones after them, and none of the kept is deleted;
-- also when every one of them was closed at the same instant (the pages then go by id).
begin;
\ir ../helpers.psql
select plan(6);

select actae.claim_execution('tap-pgk-' || i, 'k', 't', '{}') from generate_series(1, 230) as i;
select actae.close_channel('tap-pgk-' || i) from generate_series(1, 230) as i;
select actae.record_event('tap-pgp-' || i, 'e', '{}') from generate_series(1, 3) as i;
select actae.close_channel('tap-pgp-' || i) from generate_series(1, 3) as i;
select actae._set_test_clock(interval '2 days');
create temp table p as select * from actae.purge(interval '1 day', 100000);
select is((select count(*) from actae.channels where channel_id like 'tap-pgp-%'), 0::bigint,
    'the purgeable channels closed after 230 kept ones are deleted');
select is((select count(*) from actae.channels where channel_id like 'tap-pgk-%'), 230::bigint,
    'every channel with a claim in flight is kept');
select cmp_ok((select channels from p), '>=', 3::bigint, 'and counted');
select actae._set_test_clock(null);

-- All closed at one instant, the purgeable ids after the kept ones ('tap-tie-p' > 'tap-tie-k').
select actae.claim_execution('tap-tie-k' || i, 'k', 't', '{}') from generate_series(1, 230) as i;
select actae.record_event('tap-tie-p' || i, 'e', '{}') from generate_series(1, 3) as i;
select pg_temp.pin_clock('2040-01-01 00:00:00+00');
select actae.close_channel('tap-tie-' || s || i)
from unnest(array['k', 'p']) as s, generate_series(1, 230) as i
where s = 'k' or i <= 3;
select is((select count(distinct closed_at) from actae.channels
    where channel_id like 'tap-tie-%'), 1::bigint, 'one closing instant');
select pg_temp.pin_clock('2040-01-03 00:00:00+00');
select actae.purge(interval '1 day', 100000);
select is((select count(*) from actae.channels where channel_id like 'tap-tie-p%'), 0::bigint,
    'the purgeable channels are deleted past 230 kept ones closed at the same instant');
select is((select count(*) from actae.channels where channel_id like 'tap-tie-k%'), 230::bigint,
    'and the kept ones stay');

select * from finish();
rollback;
