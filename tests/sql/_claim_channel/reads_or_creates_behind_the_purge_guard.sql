-- actae._claim_channel: reads the channel, or creates it for the caller's tenant, after
-- taking the channel's purge guard shared (held until commit).
begin;
\ir ../helpers.psql
select plan(5);

create temp table made as select * from actae._claim_channel('tap-cc-new');
select is((select channel_id from made), 'tap-cc-new', 'a missing channel is created');
select is((select tenant from made), actae._new_channel_tenant('tap-cc-other'),
    'for the caller''s tenant');
select is(
    (select count(*) from pg_catalog.pg_locks
     where locktype = 'advisory' and pid = pg_backend_pid() and objsubid = 1
         and (classid::bigint << 32 | objid::bigint)
             = actae._guard_key(1633907809, 'tap-cc-new')
         and mode = 'ShareLock' and granted),
    1::bigint, 'the channel''s purge guard is held shared');

select pg_temp.record_steps('tap-cc-new', 2);
select is((select head_cursor from actae._claim_channel('tap-cc-new')), 2::bigint,
    'an existing channel is read as it is');
select is((select count(*) from actae.channels where channel_id = 'tap-cc-new'), 1::bigint,
    'and not created again');

select * from finish();
rollback;
