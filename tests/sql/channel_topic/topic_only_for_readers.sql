-- actae.channel_topic / watch_channel: a channel's NOTIFY topic is derived from a secret only
-- actae_owner reads and from a nonce the channel gets when it is created, so it cannot be
-- computed from the channel id, nor asked for before the channel exists; it is handed out
-- only to callers who may read the channel. Another tenant asking gets a decoy, the same
-- before and after the channel is created. watch_channel returns the real topic (that is
-- how a watcher learns it); a global auditor gets it too; assign_tenant does not change it.
begin;
\ir ../helpers.psql
select plan(10);

select pg_temp.two_tenants('tn_tp_a', 'tn_tp_b', 'tn_tp_la', 'tn_tp_lb');
create role tn_tp_aud login;
grant actae_auditor to tn_tp_aud;
create temp table seen (login text, what text, value text);
grant insert on seen to public;

set local session authorization tn_tp_lb;
insert into seen values ('b', 'before', actae.channel_topic('tn-tp-ch'));
set local session authorization tn_tp_la;
insert into seen values ('a', 'before', actae.channel_topic('tn-tp-ch'));
insert into seen values ('a', 'watch', actae.watch_channel('tn-tp-ch', 60));
insert into seen values ('a', 'after', actae.channel_topic('tn-tp-ch'));
set local session authorization tn_tp_lb;
insert into seen values ('b', 'after', actae.channel_topic('tn-tp-ch'));
insert into seen values
    ('b', 'watch', pg_temp.error_of($$select actae.watch_channel('tn-tp-ch', 60)$$)::text);
set local session authorization tn_tp_aud;
insert into seen values ('aud', 'topic', actae.channel_topic('tn-tp-ch'));
reset session authorization;

create function pg_temp.seen(p_login text, p_what text) returns text
language sql as $$ select value from seen where login = p_login and what = p_what $$;

select isnt(pg_temp.seen('a', 'before'), pg_temp.seen('a', 'watch'),
    'asked before the channel exists, the topic is a decoy, not the one it gets');
select is(pg_temp.seen('a', 'after'), pg_temp.seen('a', 'watch'),
    'once the channel exists, channel_topic returns what watch_channel returned');
select isnt(pg_temp.seen('a', 'watch'), 'actae_' || md5('tn-tp-ch'),
    'the topic is not md5 of the channel id');
select isnt(pg_temp.seen('b', 'after'), pg_temp.seen('a', 'watch'),
    'another tenant does not get the channel''s topic');
select is(pg_temp.seen('b', 'after'), pg_temp.seen('b', 'before'),
    '... but the same decoy before and after the channel exists');
select is((select value::jsonb ->> 'sqlstate' from seen where login = 'b' and what = 'watch'),
    'AC404', 'watch_channel on another tenant''s channel stays AC404');
select is(pg_temp.seen('aud', 'topic'), pg_temp.seen('a', 'watch'),
    'a global auditor gets the real topic');
select isnt((select topic_nonce from actae.channels where channel_id = 'tn-tp-ch'), null,
    'a new channel has a topic nonce');
select actae.assign_tenant('tn-tp-ch', 'tn_tp_b');
select is((select actae._topic(c) from actae.channels as c where c.channel_id = 'tn-tp-ch'),
    pg_temp.seen('a', 'watch'), 'assign_tenant does not change a channel''s topic');
select ok(not has_table_privilege('actae_auditor', 'actae.topic_secret', 'SELECT')
    and not has_table_privilege('actae_operator', 'actae.topic_secret', 'SELECT')
    and not has_table_privilege('actae_agent', 'actae.topic_secret', 'SELECT'),
    'no Actae role but the owner reads the topic secret');

select * from finish();
rollback;
