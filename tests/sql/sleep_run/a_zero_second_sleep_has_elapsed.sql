-- A sleep whose wake time is now (0 seconds, the clock pinned) has elapsed: the run goes on
-- instead of parking. The clock is pinned for the test (actae._now replaced inside its
-- transaction).
begin;
\ir ../helpers.psql
select plan(1);

create or replace function actae._now() returns timestamptz language sql volatile
as $$ select '2030-01-01 00:00:00+00'::timestamptz $$;
select actae.start_run('tap-zs', 'a', '{}', 'tap-zs-q');
create temp table r as select * from actae.claim_run('tap-zs-q', 'w');
select is((select outcome from actae.sleep_run('tap-zs', (select claim_token from r), 's', 0)),
    'elapsed', 'a sleep of 0 seconds has elapsed');

select * from finish();
rollback;
