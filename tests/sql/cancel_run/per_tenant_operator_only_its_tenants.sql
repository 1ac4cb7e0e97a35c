-- An operator that belongs to a tenant (a per-tenant operator) cancels only its tenants'
-- runs and executions: another tenant's answer AC404, as unknown ones, and stay as they
-- were.
begin;
\ir ../helpers.psql
select plan(4);
select pg_temp.two_tenants('tap_op_1', 'tap_op_2', 'tap_op_a1', 'tap_op_a2');
create role tap_op_operator2 login;
grant tap_op_2 to tap_op_operator2;
grant actae_operator to tap_op_operator2;
create temp table seen (what text, value jsonb);
grant insert, select on seen to public;

set local session authorization tap_op_a1;
select actae.start_run('tap-op-run', 'agent', '{}', 'tap-op-q');
select actae.claim_execution('tap-op-ch', 'k', 't', '{}');
reset session authorization;
create temp table target as
select execution_id from actae.executions where channel_id = 'tap-op-ch';
grant select on target to public;

set local session authorization tap_op_operator2;
insert into seen values
('cancel_run', pg_temp.error_of($$select actae.cancel_run('tap-op-run', 'no')$$)),
('cancel_execution', pg_temp.error_of(
    $$select actae.cancel_execution((select execution_id from target), 'no')$$));
reset session authorization;

select is((select value ->> 'sqlstate' from seen where what = 'cancel_run'), 'AC404',
    'a per-tenant operator cannot cancel another tenant''s run');
select is((select row(status, cancel_requested_at)::text from actae.runs
    where channel_id = 'tap-op-run'), '(queued,)', 'the run is untouched');
select is((select value ->> 'sqlstate' from seen where what = 'cancel_execution'), 'AC404',
    'nor another tenant''s execution');
select is((select row(status, cancel_requested_at)::text from actae.executions
    where channel_id = 'tap-op-ch'), '(claimed,)', 'the execution is untouched');

select * from finish();
rollback;
