-- Channel quota, enforced in every path that creates a channel (actae._new_channel_tenant):
-- a tenant at max_channels gets AC429 from record_event, claim_execution, claim_executions
-- (the channel's error, without an element), create_channel, watch_channel, start_run and
-- fork_channel, and nothing is written; a channel it already
-- has still works; another tenant is not affected; over max_bytes (as last measured) it
-- cannot create a channel either.
begin;
\ir ../helpers.psql
select plan(13);

select pg_temp.two_tenants('tap_c_ten', 'tap_c_other', 'tap_c_login', 'tap_c_other_login');
create temp table seen (what text, e jsonb);
grant insert, select on seen to public;

select actae.set_quota('tap_c_ten', 2);
set local session authorization tap_c_login;
select actae.record_event('tap-c-1', 'step', '{}');
select actae.create_channel('tap-c-2');
insert into seen values
    ('record', pg_temp.error_of($$select actae.record_event('tap-c-3', 'step', '{}')$$)),
    ('claim', pg_temp.error_of($$select actae.claim_execution('tap-c-3', 'k', 't', '{}')$$)),
    ('batch', pg_temp.error_of($$select * from actae.claim_executions('tap-c-3',
        array['k', 'l'], array['t', 't'], array['{}', '{}']::jsonb[])$$)),
    ('create', pg_temp.error_of($$select actae.create_channel('tap-c-3')$$)),
    ('watch', pg_temp.error_of($$select actae.watch_channel('tap-c-3')$$)),
    ('run', pg_temp.error_of($$select actae.start_run('tap-c-3', 'a', '{}')$$)),
    ('fork', pg_temp.error_of($$select actae.fork_channel('tap-c-1', 1, 'tap-c-3')$$)),
    ('existing', pg_temp.error_of($$select actae.record_event('tap-c-1', 'step', '{}')$$)),
    ('recreate', pg_temp.error_of($$select actae.create_channel('tap-c-2')$$));
set local session authorization tap_c_other_login;
insert into seen values
    ('other', pg_temp.error_of($$select actae.record_event('tap-c-o', 'step', '{}')$$));
reset session authorization;

select is((select string_agg(what || '=' || (e ->> 'sqlstate'), ',' order by what)
    from seen where what in ('record', 'claim', 'batch', 'create', 'watch', 'run', 'fork')),
    'batch=AC429,claim=AC429,create=AC429,fork=AC429,record=AC429,run=AC429,watch=AC429',
    'every creation path refuses a third channel with AC429');
select is((select e -> 'detail' ->> 'quota' from seen where what = 'record'), 'max_channels',
    'DETAIL names the quota');
select is((select e -> 'detail' ->> 'element' from seen where what = 'batch'), null,
    'the batch''s AC429 is the channel''s: it names no element');
select is((select (e -> 'detail' ->> 'limit')::bigint from seen where what = 'record'), 2::bigint,
    'and its limit');
select is((select (e -> 'detail' ->> 'used')::bigint from seen where what = 'record'), 2::bigint,
    'and the usage');
select ok((select e ->> 'message' from seen where what = 'record') ~ 'tap_c_ten.*max_channels',
    'the message names the tenant and the quota');
select is((select e from seen where what = 'existing'), null,
    'a channel the tenant already has keeps working');
select is((select e from seen where what = 'recreate'), null,
    'creating an existing channel again is not a new channel');
select is((select e from seen where what = 'other'), null, 'another tenant is not limited');
select is((select count(*) from actae.channels where channel_id = 'tap-c-3'), 0::bigint,
    'no refused channel exists');
select is((select count(*) from actae.channels where tenant = 'tap_c_ten'::regrole), 2::bigint,
    'the tenant has exactly its quota');

-- Bytes: at or over max_bytes as measured, no new channel.
select actae.set_quota('tap_c_ten', null, 1);
select actae.measure_usage();
set local session authorization tap_c_login;
insert into seen values
    ('bytes', pg_temp.error_of($$select actae.record_event('tap-c-4', 'step', '{}')$$));
reset session authorization;
select is((select e ->> 'sqlstate' from seen where what = 'bytes'), 'AC429',
    'over max_bytes, a new channel is AC429');
select is((select e -> 'detail' ->> 'quota' from seen where what = 'bytes'), 'max_bytes',
    'naming max_bytes');

select * from finish();
rollback;
