-- heartbeat_execution, complete_execution and fail_execution with the real execution_id
-- and claim_token of another tenant's execution (a leaked token) answer AC404, as for an
-- unknown execution, and write nothing: the fence is the tenant first, the token second.
begin;
\ir ../helpers.psql
select plan(4);
select pg_temp.two_tenants('tap_stolen_1', 'tap_stolen_2', 'tap_stolen_a1', 'tap_stolen_a2');
create temp table owned (execution_id uuid, claim_token uuid);
create temp table seen (what text, value jsonb);
grant insert, select on owned, seen to public;

set local session authorization tap_stolen_a1;
insert into owned
select execution_id, claim_token from actae.claim_execution('tap-stolen', 'k', 't', '{}');
reset session authorization;

set local session authorization tap_stolen_a2;
insert into seen values
('heartbeat', pg_temp.error_of($$select actae.heartbeat_execution(
    (select execution_id from owned), (select claim_token from owned))$$)),
('fail', pg_temp.error_of($$select actae.fail_execution(
    (select execution_id from owned), 'x', (select claim_token from owned))$$)),
('complete', pg_temp.error_of($$select actae.complete_execution(
    (select execution_id from owned), (select claim_token from owned), '1')$$));
reset session authorization;

select is((select value ->> 'sqlstate' from seen where what = 'heartbeat'), 'AC404',
    'heartbeat with another tenant''s token is AC404');
select is((select value ->> 'sqlstate' from seen where what = 'fail'), 'AC404',
    'fail with another tenant''s token is AC404');
select is((select value ->> 'sqlstate' from seen where what = 'complete'), 'AC404',
    'complete with another tenant''s token is AC404');
select is((select row(status, result, error, lease_expires_at)::text from actae.executions
    where channel_id = 'tap-stolen'),
    (select row('claimed', null::jsonb, null::text, e.lease_expires_at)::text
    from actae.executions as e where e.channel_id = 'tap-stolen'),
    'and the execution is as its owner left it');

select * from finish();
rollback;
