-- No read ever reveals a claim token, whatever the execution's state: a token proves
-- ownership and is handed out only by claim_execution to the owner.
begin;
\ir ../helpers.psql
select plan(4);

create temp table live as select * from actae.claim_execution('tap-notoken', 'live', 't', '{}');
create temp table lapsed as
select * from actae.claim_execution('tap-notoken', 'lapsed', 't', '{}');
select pg_temp.expire(execution_id) from lapsed;
select pg_temp.completed('tap-notoken', 'done', 't', '1');

select is(
    (select count(*) from actae.executions as e
     cross join lateral actae.get_execution(e.execution_id) as r
     where e.channel_id = 'tap-notoken' and r.claim_token is null),
    3::bigint, 'get_execution(id) hides the token of every execution');
select is(
    (select count(*) from actae.executions as e
     cross join lateral actae.get_execution(e.channel_id, e.key_name) as r
     where e.channel_id = 'tap-notoken' and r.claim_token is null),
    3::bigint, 'get_execution(channel, key) hides it');
select is(
    (select count(*) filter (where claim_token is null) || '/' || count(*)
     from actae.list_executions('tap-notoken')),
    '3/3', 'list_executions hides it');
select ok(
    (select bool_and(claim_token is null) and count(*) >= 1 from actae.list_expired_leases(100000)),
    'list_expired_leases hides it');

select * from finish();
rollback;
