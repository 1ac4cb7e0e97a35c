-- purge reads its candidates a page at a time (100, oldest closed first): a first page
-- (and more) of closed channels it must keep (each with a claim in flight) does not stop
-- it from reaching the purgeable ones closed after them, and none of the kept is deleted.
begin;
\ir ../helpers.psql
select plan(3);

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

select * from finish();
rollback;
