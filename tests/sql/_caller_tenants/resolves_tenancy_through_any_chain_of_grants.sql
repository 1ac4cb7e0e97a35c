-- actae._caller_tenants resolves tenancy through any chain of grants: a login in a tenant
-- only through a group role (login -> group -> tenant), or through a tenant that is itself
-- a LOGIN role, belongs to that tenant, and so reads (get_state, list_channels) only its
-- tenant's channels and creates channels for it. It is never a global reader: only a
-- caller in no tenant without agent rights (a global auditor) or an operator reads all.
begin;
\ir ../helpers.psql
select plan(14);

select pg_temp.two_tenants('tn_ten_a', 'tn_ten_b', 'tn_login_a', 'tn_login_b');
create role tn_grp nologin;
grant tn_ten_a to tn_grp;
create role tn_nested login;
grant tn_grp to tn_nested;
create role tn_solo login;
grant actae_agent to tn_solo;
create role tn_via_solo login;
grant tn_solo to tn_via_solo;
create role tn_aud login;
grant actae_auditor to tn_aud;
create role tn_op login;
grant actae_operator to tn_op;
-- Internal helper, callable here by the test's logins only (rolled back with the test).
grant execute on function actae._caller_tenants() to public;

create temp table seen (login text, what text, value jsonb);
grant insert on seen to public;

set local session authorization tn_login_b;
select actae.transition_state('tn-b-secret', 't', '{}', '{"secret": "tenant B"}', 0);

set local session authorization tn_nested;
insert into seen values
    ('nested', 'tenants', to_jsonb(array(select t::regrole::text
        from unnest(actae._caller_tenants()) as t))),
    ('nested', 'get_state', pg_temp.error_of(
        'select * from actae.get_state(''tn-b-secret'')')),
    ('nested', 'listed', to_jsonb((select count(*) from actae.list_channels(p_max_rows => 1000)
        as c where c.channel_id = 'tn-b-secret'))),
    ('nested', 'created', to_jsonb((select channel_id from actae.create_channel('tn-nested-ch'))));
set local session authorization tn_via_solo;
insert into seen values
    ('via_solo', 'tenants', to_jsonb(array(select t::regrole::text
        from unnest(actae._caller_tenants()) as t))),
    ('via_solo', 'get_state', pg_temp.error_of(
        'select * from actae.get_state(''tn-b-secret'')')),
    ('via_solo', 'listed', to_jsonb((select count(*)
        from actae.list_channels(p_max_rows => 1000) as c where c.channel_id = 'tn-b-secret'))),
    ('via_solo', 'created', to_jsonb((select channel_id from actae.create_channel('tn-solo-ch'))));
set local session authorization tn_aud;
insert into seen values
    ('aud', 'state', (select s.state from actae.get_state('tn-b-secret') as s));
set local session authorization tn_op;
insert into seen values
    ('op', 'state', (select s.state from actae.get_state('tn-b-secret') as s)),
    ('op', 'listed', to_jsonb((select count(*) from actae.list_channels(p_max_rows => 1000)
        as c where c.channel_id = 'tn-b-secret')));
reset session authorization;

select is((select value from seen where login = 'nested' and what = 'tenants'),
    '["tn_ten_a"]'::jsonb, 'login -> group -> tenant: the login belongs to the tenant');
select is((select value ->> 'sqlstate' from seen where login = 'nested' and what = 'get_state'),
    'AC404', '... and does not read another tenant''s state (AC404)');
select is((select value from seen where login = 'nested' and what = 'listed'), '0'::jsonb,
    '... nor list its channels');
select is((select tenant::regrole::text from actae.channels where channel_id = 'tn-nested-ch'),
    'tn_ten_a', '... and a channel it creates belongs to that tenant');
select is((select value from seen where login = 'via_solo' and what = 'tenants'),
    '["tn_solo"]'::jsonb, 'a login granted a LOGIN tenant role belongs to that tenant');
select is((select value ->> 'sqlstate' from seen where login = 'via_solo' and what = 'get_state'),
    'AC404', '... and does not read another tenant''s state (AC404)');
select is((select value from seen where login = 'via_solo' and what = 'listed'), '0'::jsonb,
    '... nor list its channels');
select is((select tenant::regrole::text from actae.channels where channel_id = 'tn-solo-ch'),
    'tn_solo', '... and a channel it creates belongs to that tenant');
select is((select value from seen where login = 'aud' and what = 'state'),
    '{"secret": "tenant B"}'::jsonb, 'a global auditor (no tenant, no agent rights) reads all');
select is((select value from seen where login = 'op' and what = 'state'),
    '{"secret": "tenant B"}'::jsonb, 'a global operator reads all');
select is((select value from seen where login = 'op' and what = 'listed'), '1'::jsonb,
    '... and lists every tenant''s channels');

-- The reads' own tests (they run inside the definer functions in real use).
grant execute on function actae._may_read(oid), actae._readable(), actae._member_of(),
    actae._global_reader() to public;
set local session authorization tn_nested;
select ok(not actae._may_read('tn_ten_b'::regrole),
    '_may_read: a nested tenant login may not read another tenant');
select ok(actae._readable() is not null
    and not ('tn_ten_b'::regrole = any(actae._readable())),
    '_readable: a nested tenant login''s listings exclude another tenant');
set local session authorization tn_aud;
select ok(actae._readable() is null, '_readable: a global auditor''s listings are unfiltered');
reset session authorization;

select * from finish();
rollback;
