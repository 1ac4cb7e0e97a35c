-- Watch cap (actae._check_watch_cap, in watch_channel): a tenant has at most
-- _limit('watched_channels') channels watched at once; one more is AC429 naming the cap
-- and writes nothing; renewing a live registration and watching again once one has lapsed
-- are allowed; another tenant has its own cap.
begin;
\ir ../helpers.psql
select plan(7);

select is(actae._limit('watched_channels'), 1000::bigint, 'the cap is 1000 channels');
create role tap_w_ten nologin;
create role tap_w_other nologin;
grant actae_agent to tap_w_ten, tap_w_other;
insert into actae.channels (channel_id, tenant)
select 'tap-w-' || i, 'tap_w_ten'::regrole from generate_series(1, 1001) as i;
insert into actae.channels (channel_id, tenant) values ('tap-w-other', 'tap_w_other'::regrole);
select count(actae.watch_channel('tap-w-' || i, 60)) from generate_series(1, 1000) as i;

create temp table digest as select pg_temp.ledger_digest() as d;
create temp table refused as
select pg_temp.error_of($$select actae.watch_channel('tap-w-1001', 60)$$) as e;
select is((select e ->> 'sqlstate' from refused), 'AC429', 'the 1001st watched channel is AC429');
select is((select e -> 'detail' ->> 'quota' from refused), 'watched_channels',
    'naming the cap');
select is(pg_temp.ledger_digest(), (select d from digest), 'and writes nothing');
select is(pg_temp.error_of($$select actae.watch_channel('tap-w-1', 600)$$), null,
    'renewing a live registration is allowed at the cap');
select is(pg_temp.error_of($$select actae.watch_channel('tap-w-other', 60)$$), null,
    'another tenant has its own cap');
update actae.channels set watched_until = clock_timestamp() - interval '1 second'
where channel_id = 'tap-w-2';
select is(pg_temp.error_of($$select actae.watch_channel('tap-w-1001', 60)$$), null,
    'once a registration lapses, a new one fits');

select * from finish();
rollback;
