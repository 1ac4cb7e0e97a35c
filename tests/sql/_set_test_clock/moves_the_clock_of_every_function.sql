-- actae._set_test_clock moves actae._now(), the one clock every function reads: leases,
-- heartbeats, completions, events and new channels follow it, so a test can make a lease
-- lapse by moving time instead of sleeping; a null offset puts the real clock back.
begin;
\ir ../helpers.psql
select plan(10);

select ok(
    abs(extract(epoch from actae._now() - clock_timestamp())) < 1,
    'without an offset actae._now() is the real clock'
);
select actae._set_test_clock(interval '1 hour');
select ok(
    actae._now() - clock_timestamp() between interval '59 minutes' and interval '61 minutes',
    'with an offset of an hour actae._now() runs an hour ahead'
);

create temp table c as
select * from actae.claim_execution('tap-clock', 'k', 't', '{}', null, 1);
select ok(
    (select lease_expires_at - clock_timestamp() from c)
    between interval '1 hour' and interval '1 hour 2 seconds',
    'claim_execution measures the lease on the moved clock'
);
select ok(
    (select created_at > clock_timestamp() + interval '59 minutes'
     from actae.channels where channel_id = 'tap-clock'),
    'a new channel''s created_at (the column default) is on the moved clock'
);
select ok(
    (select recorded_at > clock_timestamp() + interval '59 minutes'
     from actae.record_event('tap-clock', 'step', '{}')),
    'record_event stamps events on the moved clock'
);

-- Two seconds later (no sleep): the one-second lease has lapsed.
select actae._set_test_clock(interval '1 hour 2 seconds');
select is(
    (select outcome from actae.claim_execution('tap-clock', 'k', 't', '{}', null, 1)),
    'reclaimed', 'moving the clock past the lease makes the next claim reclaim it'
);
select is(
    (select count(*) from actae.list_expired_leases(100000) as l where l.channel_id = 'tap-clock'),
    0::bigint, 'the reclaimed lease is live again on the moved clock'
);
select actae._set_test_clock(interval '1 hour 4 seconds');
select is(
    (select count(*) from actae.list_expired_leases(100000) as l where l.channel_id = 'tap-clock'),
    1::bigint, 'list_expired_leases reads the moved clock'
);
select ok(
    (select finished_at > clock_timestamp() + interval '1 hour'
     from actae.complete_execution(
         (select execution_id from c),
         (select e.claim_token from actae.executions as e
          where e.channel_id = 'tap-clock' and e.key_name = 'k'),
         '{}')),
    'complete_execution stamps finished_at on the moved clock'
);

select actae._set_test_clock(null);
select ok(
    abs(extract(epoch from actae._now() - clock_timestamp())) < 1,
    'a null offset puts the real clock back'
);

select * from finish();
rollback;
