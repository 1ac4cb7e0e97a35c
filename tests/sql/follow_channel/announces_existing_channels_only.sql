-- follow_channel registers notifications for an existing channel (the auditor may call
-- it) and returns the same topic as watch_channel; it never creates a channel (AC404) and
-- writes nothing but the registration.
begin;
\ir ../helpers.psql
select plan(5);

select actae.record_event('tap-fc', 'e', '{}');
set local role actae_auditor;
select is(actae.follow_channel('tap-fc', 30), actae.channel_topic('tap-fc'),
    'the auditor registers and gets the channel''s topic');
select throws_ok($$select actae.follow_channel('tap-fc-nowhere')$$, 'AC404', null,
    'an unknown channel is AC404, not created');
select throws_ok($$select actae.follow_channel('tap-fc', 0)$$, 'AC400', null, 'seconds 0');
reset role;
select ok((select watched_until > clock_timestamp() + interval '20 seconds'
    from actae.channels where channel_id = 'tap-fc'), 'the registration is recorded');
select is(
    (select count(*) from actae.channels where channel_id like 'tap-fc%'), 1::bigint,
    'no channel was created');
select * from finish();
rollback;
