-- actae._now() is pg_catalog.clock_timestamp() (moved by the test offset): the wall clock,
-- which runs on inside one transaction (not now(), the transaction's start), after a null
-- or zero offset put the real clock back and with an offset alike; and a caller's
-- search_path cannot put another clock_timestamp in its place.
begin;
\ir ../helpers.psql
select plan(6);

select actae._set_test_clock(null);
select pg_sleep(0.05);
select ok(actae._now() >= now() + interval '50 ms',
    'after a null offset actae._now() runs on within the transaction');
select actae._set_test_clock(interval '0');
select pg_sleep(0.05);
select ok(actae._now() >= now() + interval '100 ms',
    'after a zero offset actae._now() runs on within the transaction');
select actae._set_test_clock(interval '1 hour');
select ok(actae._now() >= now() + interval '1 hour 100 ms',
    'with an offset actae._now() is the wall clock moved, not the transaction start moved');

-- A clock_timestamp earlier on the search_path than pg_catalog is not the one read.
create schema tap_clock_evil;
create function tap_clock_evil.clock_timestamp() returns timestamptz
language sql as $$ select timestamptz '2000-01-01 00:00:00+00' $$;
create temp table seen (label text, at timestamptz);
select actae._set_test_clock(null);
set local search_path = tap_clock_evil, pg_catalog, public;
insert into pg_temp.seen select 'real', actae._now();
select actae._set_test_clock(interval '1 hour');
insert into pg_temp.seen select 'moved', actae._now();
set local search_path to default;
select ok((select at from pg_temp.seen where label = 'real') >= now(),
    'without an offset actae._now() reads pg_catalog.clock_timestamp whatever the search_path');
select ok((select at from pg_temp.seen where label = 'moved') >= now() + interval '1 hour',
    'with an offset actae._now() reads pg_catalog.clock_timestamp whatever the search_path');
select ok(
    abs(extract(epoch from actae._now() - clock_timestamp() - interval '1 hour')) < 1,
    'the search_path did not change the clock the functions read'
);

select * from finish();
rollback;
