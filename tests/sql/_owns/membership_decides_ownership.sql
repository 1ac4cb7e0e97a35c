-- actae._owns / _owns_channel: true when session_user is a member of the tenant (of the
-- channel); actae._may_read / _may_read_channel: the same, or the caller belongs to no
-- tenant at all (a global auditor reads every channel). A superuser owns everything.
begin;
\ir ../helpers.psql
select plan(8);

create role t_ten_x nologin;
create role t_ten_y nologin;
grant actae_agent to t_ten_x, t_ten_y;
create role t_x login;
create role t_aud login;
grant t_ten_x to t_x;
grant actae_auditor to t_aud;
grant execute on function actae._owns(oid), actae._may_read(oid), actae._owns_channel(text),
    actae._may_read_channel(text), actae._caller_tenants(), actae._channel_tenant(text),
    actae._global_reader() to public;
-- (They run inside definer functions in real use; called directly here, they read as the login.)
grant select on actae.channels to public;
insert into actae.channels (channel_id, tenant) values
    ('own-x', 't_ten_x'::regrole), ('own-y', 't_ten_y'::regrole);
create temp table seen (login text, what text, value boolean);
grant insert on seen to public;

set local session authorization t_x;
insert into seen values
    ('x', 'owns x', actae._owns('t_ten_x'::regrole)),
    ('x', 'owns y', actae._owns('t_ten_y'::regrole)),
    ('x', 'reads y', actae._may_read('t_ten_y'::regrole)),
    ('x', 'owns channel x', actae._owns_channel('own-x')),
    ('x', 'owns channel y', actae._owns_channel('own-y'));
set local session authorization t_aud;
insert into seen values
    ('aud', 'owns y', actae._owns('t_ten_y'::regrole)),
    ('aud', 'reads channel y', actae._may_read_channel('own-y'));
reset session authorization;

select ok((select value from seen where login = 'x' and what = 'owns x'),
    'a login owns its tenant''s rows');
select ok(not (select value from seen where login = 'x' and what = 'owns y'),
    'not another tenant''s');
select ok(not (select value from seen where login = 'x' and what = 'reads y'),
    'and, being in a tenant, may not read them either');
select ok((select value from seen where login = 'x' and what = 'owns channel x'),
    '_owns_channel: its tenant''s channel');
select ok(not (select value from seen where login = 'x' and what = 'owns channel y'),
    '_owns_channel: not another tenant''s');
select ok(not (select value from seen where login = 'aud' and what = 'owns y'),
    'a global auditor owns nothing');
select ok((select value from seen where login = 'aud' and what = 'reads channel y'),
    'but reads every channel');
select ok(actae._owns('t_ten_y'::regrole), 'a superuser owns everything');

select * from finish();
rollback;
