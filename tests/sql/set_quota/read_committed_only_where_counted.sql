-- Under REPEATABLE READ, a channel creation that a max_channels quota counts
-- and a new watch registration (counted against the watch cap) are 0A000: their counts need
-- a snapshot taken after their lock. A renewal and an uncounted creation pass.
-- annotate_channel is 0A000 too (it reads the channel after its guard), writing nothing.
begin isolation level repeatable read;
\ir ../helpers.psql
select plan(6);

select pg_temp.two_tenants('tap_z2r_a', 'tap_z2r_b', 'tap_z2r_al', 'tap_z2r_bl');
select actae.set_quota('tap_z2r_a', 10);
set local session authorization tap_z2r_al;
create temp table seen as
select pg_temp.error_of($$select actae.create_channel('tap-z2r-1')$$) as counted;
reset session authorization;
select is((select counted ->> 'sqlstate' from seen), '0A000',
    'a creation under a max_channels quota in REPEATABLE READ is 0A000');

select actae.create_channel('tap-z2r-2');
select is(pg_temp.error_of($$select actae.watch_channel('tap-z2r-2', 60)$$) ->> 'sqlstate',
    '0A000', 'a new watch registration in REPEATABLE READ is 0A000');
update actae.channels set watched_until = actae._now() + interval '1 minute'
where channel_id = 'tap-z2r-2';
select is(pg_temp.error_of($$select actae.watch_channel('tap-z2r-2', 60)$$), null,
    'renewing a live registration passes');
select is(pg_temp.error_of($$select actae.create_channel('tap-z2r-3')$$), null,
    'an uncounted creation passes');

select is(pg_temp.error_of($$select actae.annotate_channel('tap-z2r-2', 'n', null, null, 0)$$)
    ->> 'sqlstate', '0A000', 'annotate_channel in REPEATABLE READ is 0A000');
select is((select count(*) from actae.annotations where channel_id = 'tap-z2r-2'), 0::bigint,
    'and writes no annotation');

select * from finish();
rollback;
