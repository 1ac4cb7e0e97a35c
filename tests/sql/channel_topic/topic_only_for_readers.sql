-- actae.channel_topic / watch_channel: a channel's NOTIFY topic is derived from a secret only
-- actae_owner reads (not computable from the channel id), and is handed out only to callers
-- who may read the channel. Another tenant asking for it gets a topic on which nothing is
-- ever announced (never the channel's). A caller asking before the channel exists gets the
-- topic the channel has once it creates it (the driver's watch() LISTENs first);
-- watch_channel returns the same topic; a global auditor gets it too; assign_tenant does
-- not change it (watchers keep listening).
begin;
\ir ../helpers.psql
select plan(10);

select pg_temp.two_tenants('tn_tp_a', 'tn_tp_b', 'tn_tp_la', 'tn_tp_lb');
create role tn_tp_aud login;
grant actae_auditor to tn_tp_aud;
create temp table seen (login text, what text, value text);
grant insert on seen to public;

set local session authorization tn_tp_la;
insert into seen values ('a', 'before', actae.channel_topic('tn-tp-ch'));
insert into seen values ('a', 'watch', actae.watch_channel('tn-tp-ch', 60));
insert into seen values ('a', 'after', actae.channel_topic('tn-tp-ch'));
set local session authorization tn_tp_lb;
insert into seen values
    ('b', 'other', actae.channel_topic('tn-tp-ch')),
    ('b', 'unknown', actae.channel_topic('tn-tp-unknown'));
insert into seen values
    ('b', 'watch', pg_temp.error_of($$select actae.watch_channel('tn-tp-ch', 60)$$)::text);
set local session authorization tn_tp_aud;
insert into seen values ('aud', 'topic', actae.channel_topic('tn-tp-ch'));
reset session authorization;

select is((select value from seen where login = 'a' and what = 'watch'),
    (select value from seen where login = 'a' and what = 'before'),
    'the topic asked before the channel exists is the one watch_channel returns');
select is((select value from seen where login = 'a' and what = 'after'),
    (select value from seen where login = 'a' and what = 'watch'),
    '... and channel_topic returns it once the channel exists');
select isnt((select value from seen where login = 'a' and what = 'watch'),
    'actae_' || md5('tn-tp-ch'), 'the topic is not md5 of the channel id');
select isnt((select value from seen where login = 'b' and what = 'other'),
    (select value from seen where login = 'a' and what = 'watch'),
    'another tenant does not get the channel''s topic');
select isnt((select value from seen where login = 'b' and what = 'other'),
    actae._topic('tn-tp-ch'), '... nor the topic of any channel id');
select is((select value from seen where login = 'b' and what = 'unknown'),
    actae._topic('tn-tp-unknown'),
    'an unknown channel id answers the topic it will have once created');
select is((select value::jsonb ->> 'sqlstate' from seen where login = 'b' and what = 'watch'),
    'AC404', 'watch_channel on another tenant''s channel stays AC404');
select is((select value from seen where login = 'aud' and what = 'topic'),
    (select value from seen where login = 'a' and what = 'watch'),
    'a global auditor gets the real topic');
select actae.assign_tenant('tn-tp-ch', 'tn_tp_b');
select is(actae._topic('tn-tp-ch'), (select value from seen where login = 'a' and what = 'watch'),
    'assign_tenant does not change a channel''s topic');
select ok(not has_table_privilege('actae_auditor', 'actae.topic_secret', 'SELECT')
    and not has_table_privilege('actae_operator', 'actae.topic_secret', 'SELECT')
    and not has_table_privilege('actae_agent', 'actae.topic_secret', 'SELECT'),
    'no Actae role but the owner reads the topic secret');

select * from finish();
rollback;
