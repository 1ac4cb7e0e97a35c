-- list_channels lists a caller's tenants' channels only: a tenant's login sees none of
-- another tenant's channels (not even when filtering for them by metadata or parent);
-- a caller in no tenant (a global auditor) lists every tenant's channels.
begin;
\ir ../helpers.psql
select plan(5);

select pg_temp.two_tenants('tap_lt_a', 'tap_lt_b', 'tap_lt_al', 'tap_lt_bl');
create role tap_lt_auditor login;
grant actae_auditor to tap_lt_auditor;
create temp table seen (who text, channel_id text);
grant insert, select on seen to public;

set local session authorization tap_lt_al;
select actae.create_channel('tap-lt-a', '{"tap_lt": "x"}');
select actae.record_event('tap-lt-a', 'step', '{}');
select actae.fork_channel('tap-lt-a', 1, 'tap-lt-a-fork');
set local session authorization tap_lt_bl;
select actae.create_channel('tap-lt-b', '{"tap_lt": "x"}');
insert into seen select 'b', channel_id from actae.list_channels(p_max_rows => 1000);
insert into seen select 'b-meta', channel_id
from actae.list_channels(p_metadata => '{"tap_lt": "x"}');
insert into seen select 'b-parent', channel_id
from actae.list_channels(p_parent_channel_id => 'tap-lt-a');
set local session authorization tap_lt_al;
insert into seen select 'a', channel_id from actae.list_channels(p_max_rows => 1000);
set local session authorization tap_lt_auditor;
insert into seen select 'auditor', channel_id
from actae.list_channels(p_metadata => '{"tap_lt": "x"}');
reset session authorization;

select set_eq($$select channel_id from seen where who = 'b'$$, array['tap-lt-b'],
    'a tenant''s login lists its own channel only');
select set_eq($$select channel_id from seen where who = 'b-meta'$$, array['tap-lt-b'],
    'also when its filter matches another tenant''s channel');
select is((select count(*) from seen where who = 'b-parent'), 0::bigint,
    'and no fork of another tenant''s channel');
select set_eq($$select channel_id from seen where who = 'a'$$,
    array['tap-lt-a', 'tap-lt-a-fork'], 'the other tenant lists its own channels');
select set_eq($$select channel_id from seen where who = 'auditor'$$,
    array['tap-lt-a', 'tap-lt-b'], 'a global auditor lists every tenant''s channels');

select * from finish();
rollback;
