-- A wait whose deadline is now (0 seconds, the clock pinned) has timed out; an awaited event
-- recorded after a waiter's deadline leaves it as the timeout woke it (wake reason timeout,
-- due at its deadline). The clock is pinned for the test (actae._now replaced inside its
-- transaction).
begin;
\ir ../helpers.psql
select plan(4);

create or replace function actae._now() returns timestamptz language sql volatile
as $$ select '2030-01-01 00:00:00+00'::timestamptz $$;
select actae.start_run('tap-zw', 'a', '{}', 'tap-zw-q');
create temp table r1 as select * from actae.claim_run('tap-zw-q', 'w');
select is((select outcome from actae.wait_for_event('tap-zw', (select claim_token from r1),
    'k', 'ev', 0)), 'timed_out', 'a wait of 0 seconds has timed out');

select actae.start_run('tap-zx', 'a', '{}', 'tap-zx-q');
create temp table r2 as select * from actae.claim_run('tap-zx-q', 'w');
select is((select outcome from actae.wait_for_event('tap-zx', (select claim_token from r2),
    'k', 'ev', 10)), 'waiting', 'a wait of 10 seconds parks');
create or replace function actae._now() returns timestamptz language sql volatile
as $$ select '2030-01-01 00:01:00+00'::timestamptz $$;
select actae.record_event('tap-zx', 'ev', '{}');
select is((select wake_reason from actae.runs where channel_id = 'tap-zx'), 'timeout',
    'an event after the deadline leaves the wake reason timeout');
select is((select due_at from actae.runs where channel_id = 'tap-zx'),
    '2030-01-01 00:00:10+00'::timestamptz, 'and the run due at its deadline');

select * from finish();
rollback;
