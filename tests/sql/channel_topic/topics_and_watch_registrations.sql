-- NOTIFY topics and watch registrations. A channel's topic is
-- 'actae_' || md5(secret || ':channel:' || channel_id || ':' || topic_nonce) (the nonce
-- makes it unknowable before the channel exists); the decoy channel_topic gives for a
-- channel the caller may not read is never that channel's topic (also for a channel made
-- before nonces, which has none) and depends on the caller. Registrations only extend:
-- watch_channel and follow_channel with fewer seconds keep the later end. seconds is
-- 1..86400.
begin;
\ir ../helpers.psql
select plan(10);

select pg_temp.two_tenants('tap_z2t_a', 'tap_z2t_b', 'tap_z2t_al', 'tap_z2t_bl');
create temp table seen (what text, topic text);
grant insert, select on seen to public;

select actae.create_channel('tap-z2t-1');
select is(actae.channel_topic('tap-z2t-1'),
    (select 'actae_' || md5(s.secret || ':channel:' || c.channel_id || ':' || c.topic_nonce)
     from actae.topic_secret as s, actae.channels as c where c.channel_id = 'tap-z2t-1'),
    'the topic is derived from the secret, the channel id and its nonce');

-- A channel made before nonces (none), of tenant a: tenant b's answer is a decoy.
set local session authorization tap_z2t_al;
select actae.record_event('tap-z2t-old', 'step', '{}');
reset session authorization;
update actae.channels set topic_nonce = null where channel_id = 'tap-z2t-old';
set local session authorization tap_z2t_bl;
insert into seen values ('b_old', actae.channel_topic('tap-z2t-old')),
    ('b_unknown', actae.channel_topic('tap-z2t-nowhere'));
reset session authorization;
set local session authorization tap_z2t_al;
insert into seen values ('a_old', actae.channel_topic('tap-z2t-old')),
    ('a_unknown', actae.channel_topic('tap-z2t-nowhere'));
reset session authorization;
select is((select topic from seen where what = 'a_old'),
    (select actae._topic(c) from actae.channels as c where c.channel_id = 'tap-z2t-old'),
    'the owner gets the nonce-less channel''s topic');
select isnt((select topic from seen where what = 'b_old'),
    (select topic from seen where what = 'a_old'),
    'another tenant''s decoy is not that channel''s topic');
select isnt((select topic from seen where what = 'b_unknown'),
    (select topic from seen where what = 'a_unknown'),
    'the decoy of an unknown channel depends on the caller');

-- Registrations only extend.
select actae.watch_channel('tap-z2t-w', 600);
select actae.watch_channel('tap-z2t-w', 60);
select ok((select watched_until from actae.channels where channel_id = 'tap-z2t-w')
    > actae._now() + interval '590 seconds',
    'a shorter watch_channel keeps the later end');
select actae.follow_channel('tap-z2t-1', 600);
select actae.follow_channel('tap-z2t-1', 60);
select ok((select watched_until from actae.channels where channel_id = 'tap-z2t-1')
    > actae._now() + interval '590 seconds',
    'a shorter follow_channel keeps the later end');

select is(pg_temp.error_of($$select actae.watch_channel('tap-z2t-w', 0)$$) ->> 'sqlstate',
    'AC400', 'watch_channel for 0 seconds is AC400');
select is(pg_temp.error_of($$select actae.watch_channel('tap-z2t-w', 86401)$$) ->> 'sqlstate',
    'AC400', 'watch_channel for 86401 seconds is AC400');
select is(pg_temp.error_of($$select actae.watch_channel('tap-z2t-w', 86400)$$), null,
    'watch_channel for 86400 seconds passes');
select is(pg_temp.error_of($$select actae.follow_channel('tap-z2t-1', 86401)$$) ->> 'sqlstate',
    'AC400', 'follow_channel for 86401 seconds is AC400');

select * from finish();
rollback;
