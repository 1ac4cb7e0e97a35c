-- cancel_execution by a global operator (a login granted actae_operator and no tenant): it
-- may read every tenant's executions (actae._may_read), so it cancels them: a claimed one
-- gets the request recorded, a retryably failed one ends as cancelled at once. Only an
-- operator inside a tenant is limited to its tenants (cancel_run/per_tenant_operator_...).
begin;
\ir ../helpers.psql
select plan(4);
select pg_temp.two_tenants('tap_gop_1', 'tap_gop_2', 'tap_gop_a1', 'tap_gop_a2');
create role tap_gop_operator login;
grant actae_operator to tap_gop_operator;
create temp table seen (what text, value jsonb);
grant insert, select on seen to public;

set local session authorization tap_gop_a1;
select actae.claim_execution('tap-gop-ch', 'live', 't', '{}');
select actae.fail_execution(c.execution_id, 'flaky', c.claim_token, true)
from actae.claim_execution('tap-gop-ch', 'flaky', 't', '{}') as c;
reset session authorization;
create temp table target as
select key_name, execution_id from actae.executions where channel_id = 'tap-gop-ch';
grant select on target to public;

set local session authorization tap_gop_operator;
insert into seen
select key_name, pg_temp.error_of(format(
    'select actae.cancel_execution(%L, %L)', execution_id, 'operator stop'))
from target;
reset session authorization;

select is((select value from seen where what = 'live'), null,
    'a global operator cancels a tenant''s claimed execution');
select is((select row(status, cancel_reason)::text from actae.executions
    where channel_id = 'tap-gop-ch' and key_name = 'live'), '(claimed,"operator stop")',
    'the request is recorded');
select is((select value from seen where what = 'flaky'), null,
    'and a tenant''s retryably failed one');
select is((select row(status, retryable, error)::text from actae.executions
    where channel_id = 'tap-gop-ch' and key_name = 'flaky'),
    '(cancelled,f,"cancelled: operator stop")', 'which ends as cancelled at once');

select * from finish();
rollback;
