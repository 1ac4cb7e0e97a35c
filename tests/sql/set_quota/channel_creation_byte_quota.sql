-- A tenant whose measured bytes reached max_bytes creates no channel, in a
-- path that appends nothing (create_channel, watch_channel) too, and also when its quota
-- has no max_channels; "reached" includes exactly at the limit.
begin;
\ir ../helpers.psql
select plan(4);

select pg_temp.two_tenants('tap_z2q_a', 'tap_z2q_b', 'tap_z2q_al', 'tap_z2q_bl');
set local session authorization tap_z2q_al;
select actae.record_event('tap-z2q-1', 'step', '{}');
reset session authorization;

-- Only max_bytes, over it.
select actae.set_quota('tap_z2q_a', null, 1);
select actae.measure_usage();
set local session authorization tap_z2q_al;
create temp table seen as
select pg_temp.error_of($$select actae.create_channel('tap-z2q-2')$$) as c,
    pg_temp.error_of($$select actae.watch_channel('tap-z2q-3')$$) as w;
reset session authorization;
select is((select c ->> 'sqlstate' from seen), 'AC429',
    'a max_bytes-only quota reached: create_channel is AC429');
select is((select w ->> 'sqlstate' from seen), 'AC429', 'and so is watch_channel');

-- Exactly at max_bytes (usage as measured is kept by set_quota).
select actae.set_quota('tap_z2q_a', 100, (select used_bytes from actae.quotas
    where tenant = 'tap_z2q_a'::regrole));
set local session authorization tap_z2q_al;
create temp table at_limit as
select pg_temp.error_of($$select actae.create_channel('tap-z2q-4')$$) as c;
reset session authorization;
select is((select c ->> 'sqlstate' from at_limit), 'AC429',
    'used_bytes equal to max_bytes: create_channel is AC429');
select is((select count(*) from actae.channels where channel_id like 'tap-z2q-%'), 1::bigint,
    'no refused channel exists');

select * from finish();
rollback;
