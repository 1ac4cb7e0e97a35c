-- A reclaim starts a fresh attempt: the row keeps nothing of the attempt before it but its
-- identity and counters. It takes the reclaimer's lease_seconds (a heartbeat without one
-- renews that lease), clears retryable, heartbeat_at, finished_at and retain_until (the
-- finished attempt's lifetime stamp), and records the reclaiming login as written_by.
begin;
\ir ../helpers.psql
select plan(9);

create role t_rf_tenant nologin;
grant actae_agent to t_rf_tenant;
create role t_rf_first login;
create role t_rf_second login;
grant t_rf_tenant to t_rf_first, t_rf_second;
create temp table first (like actae.execution_row);
create temp table second (like actae.execution_row);
grant all on first, second to public;

set local session authorization t_rf_first;
insert into first select * from actae.claim_execution('tap-rf', 'k', 't', '{}', null, 10);
select actae.heartbeat_execution(execution_id, claim_token) from first;
select actae.fail_execution(execution_id, 'timeout', claim_token, true) from first;
reset session authorization;
-- The lifetime stamp set_key_ttl gives a finished row.
update actae.executions set retain_until = now() + interval '1 day'
where channel_id = 'tap-rf' and key_name = 'k';

set local session authorization t_rf_second;
insert into second select * from actae.claim_execution('tap-rf', 'k', 't', '{}', null, 600);
reset session authorization;

select is(outcome, 'reclaimed', 'the retryable failure is reclaimed') from second;
select is(lease_seconds, 600, 'with the reclaimer''s lease_seconds') from second;
select is(retryable, null, 'retryable is cleared') from second;
select is(heartbeat_at, null, 'heartbeat_at is cleared') from second;
select is(finished_at, null, 'finished_at is cleared') from second;
select is(pg_temp.stored(execution_id) -> 'retain_until', 'null'::jsonb,
    'retain_until is cleared') from second;
select is(
    (select e.written_by::regrole::text from actae.executions as e
     where e.channel_id = 'tap-rf' and e.key_name = 'k'),
    't_rf_second', 'written_by is the reclaiming login');
select is(
    (select lease_seconds from actae.executions
     where channel_id = 'tap-rf' and key_name = 'k'),
    600, 'the stored lease_seconds is the reclaimer''s');

create temp table beat as
select * from actae.heartbeat_execution(
    (select execution_id from second), (select claim_token from second));
select ok(b.lease_expires_at - b.heartbeat_at between interval '599.9 seconds'
    and interval '600.1 seconds', 'a heartbeat without lease_seconds renews the 600-second lease')
from beat as b;

select * from finish();
rollback;
