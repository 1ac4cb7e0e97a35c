-- list_events returns cursor order whatever the heap order of the rows;
-- create_channel refuses metadata nested deeper than _limit('json_depth') (AC400, nothing
-- written); fork_tree orders siblings by fork cursor as a number (2 before 10), then id;
-- ownership is membership: a NOINHERIT login of a tenant (acting through SET ROLE) appends
-- to the channel it created.
begin;
\ir ../helpers.psql
select plan(6);

select pg_temp.record_steps('tap-z2o', 3);
-- Rewrite event 1 in place: its row version moves to the end of the heap.
update actae.events set payload = payload where channel_id = 'tap-z2o' and cursor = 1;
select is((select array_agg(cursor) from actae.list_events('tap-z2o')), array[1, 2, 3]::bigint[],
    'list_events is in cursor order');
select is((select array_agg(cursor) from actae.list_events('tap-z2o', 0, 2)), array[1, 2]::bigint[],
    'and a page is the first cursors');

select is(pg_temp.error_of(format($$select actae.create_channel('tap-z2o-deep', %L)$$,
    repeat('{"a": ', 513) || '1' || repeat('}', 513))) ->> 'sqlstate', 'AC400',
    'metadata nested 513 levels deep is AC400');
select is((select count(*) from actae.channels where channel_id = 'tap-z2o-deep'), 0::bigint,
    'and no channel is created');

select pg_temp.record_steps('tap-z2o-t', 12);
select actae.fork_channel('tap-z2o-t', 10, 'tap-z2o-t-a');
select actae.fork_channel('tap-z2o-t', 2, 'tap-z2o-t-b');
select is((select array_agg(channel_id) from actae.fork_tree('tap-z2o-t')),
    array['tap-z2o-t', 'tap-z2o-t-b', 'tap-z2o-t-a'],
    'siblings by fork cursor as a number: 2 before 10, whatever their ids');

create role tap_z2o_ten nologin;
grant actae_agent to tap_z2o_ten;
create role tap_z2o_login login noinherit;
grant tap_z2o_ten to tap_z2o_login;
grant execute on function pg_temp.error_of(text) to public;
create temp table seen (e jsonb);
grant insert, select on seen to public;
-- NOINHERIT: the login uses its tenant's rights after SET ROLE; session_user stays the login.
set local session authorization tap_z2o_login;
set local role tap_z2o_ten;
insert into seen
select pg_temp.error_of($$select actae.record_event('tap-z2o-ni', 'step', '{}');
    select actae.record_event('tap-z2o-ni', 'step', '{}')$$);
reset role;
reset session authorization;
select is((select e from seen), null,
    'a NOINHERIT member of a tenant appends to the channel it created');

select * from finish();
rollback;
