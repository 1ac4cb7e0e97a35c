-- The execution reads show a tenant's login nothing of another tenant's executions:
-- get_execution by id and by key is AC404 exactly as for an execution that does not exist;
-- list_executions (one channel or all channels, lease_expired or not) and
-- list_expired_leases leave them out. The owner's login sees them.
begin;
\ir ../helpers.psql
select plan(9);

select pg_temp.two_tenants('tap_xh_a', 'tap_xh_b', 'tap_xh_al', 'tap_xh_bl');
create temp table seen (what text, e jsonb, n bigint);
grant insert, select on seen to public;

set local session authorization tap_xh_al;
select actae.complete_execution(c.execution_id, c.claim_token, '"secret"')
from actae.claim_execution('tap-xh-a', 'done', 'charge', '{}') as c;
select actae.claim_execution('tap-xh-a', 'lapsed', 'charge', '{}');
reset session authorization;
select pg_temp.expire(execution_id) from actae.executions
where channel_id = 'tap-xh-a' and key_name = 'lapsed';
select execution_id as done_id from actae.executions
where channel_id = 'tap-xh-a' and key_name = 'done' \gset

set local session authorization tap_xh_bl;
insert into seen (what, e) values
    ('by id', pg_temp.error_of(format('select actae.get_execution(%L::uuid)', :'done_id'))),
    ('unknown id', pg_temp.error_of(format('select actae.get_execution(%L::uuid)',
        gen_random_uuid()))),
    ('by key', pg_temp.error_of($$select actae.get_execution('tap-xh-a', 'done')$$));
insert into seen (what, n) values
    ('list channel', (select count(*) from actae.list_executions('tap-xh-a'))),
    ('list channel lapsed', (select count(*) from actae.list_executions('tap-xh-a', null, true))),
    ('list all', (select count(*) from actae.list_executions(null, null, false, 100000)
        where channel_id = 'tap-xh-a')),
    ('list all lapsed', (select count(*) from actae.list_executions(null, null, true, 100000)
        where channel_id = 'tap-xh-a')),
    ('expired', (select count(*) from actae.list_expired_leases(100000)
        where channel_id = 'tap-xh-a'));
reset session authorization;
set local session authorization tap_xh_al;
insert into seen (what, n) values
    ('owner', (select count(*) from actae.list_executions('tap-xh-a'))
        + (select count(*) from actae.list_executions(null, null, false, 100000)
            where channel_id = 'tap-xh-a')
        + (select count(*) from actae.list_expired_leases(100000)
            where channel_id = 'tap-xh-a'));
reset session authorization;

select is((select e ->> 'sqlstate' from seen where what = 'by id'), 'AC404',
    'get_execution by id of another tenant''s execution is AC404');
select is(
    (select e ->> 'message' from seen where what = 'by id'),
    replace((select e ->> 'message' from seen where what = 'unknown id'),
        (select e -> 'detail' ->> 'execution_id' from seen where what = 'unknown id'),
        :'done_id'),
    'with the message of an unknown execution');
select is((select e ->> 'sqlstate' from seen where what = 'by key'), 'AC404',
    'get_execution by key of another tenant''s execution is AC404');
select is((select n from seen where what = 'list channel'), 0::bigint,
    'list_executions of the channel shows none of them');
select is((select n from seen where what = 'list channel lapsed'), 0::bigint,
    'nor with lease_expired');
select is((select n from seen where what = 'list all'), 0::bigint,
    'list_executions of all channels shows none of them');
select is((select n from seen where what = 'list all lapsed'), 0::bigint,
    'nor with lease_expired');
select is((select n from seen where what = 'expired'), 0::bigint,
    'list_expired_leases shows none of them');
select is((select n from seen where what = 'owner'), 5::bigint,
    'the owner sees both rows in the lists and its lapsed lease');

select * from finish();
rollback;
