-- A claim that meets a cancelled execution whose owner's lease has lapsed ends it (status
-- cancelled, not retryable, error 'cancelled: <reason>', outcome failed) and is its writer:
-- written_by is the claiming login, as for every claim that writes.
begin;
\ir ../helpers.psql
select plan(3);

create role t_cw_tenant nologin;
grant actae_agent to t_cw_tenant;
create role t_cw_owner login;
create role t_cw_other login;
grant t_cw_tenant to t_cw_owner, t_cw_other;
create temp table seen (outcome text, status text, error text, retryable boolean);
grant insert on seen to public;

set local session authorization t_cw_owner;
select actae.claim_execution('tap-cw', 'k', 't', '{}');
reset session authorization;
select actae.cancel_execution(execution_id, 'operator stop') from actae.executions
where channel_id = 'tap-cw' and key_name = 'k';
select pg_temp.expire(execution_id) from actae.executions
where channel_id = 'tap-cw' and key_name = 'k';

set local session authorization t_cw_other;
insert into seen select outcome, status, error, retryable
from actae.claim_execution('tap-cw', 'k', 't', '{}');
reset session authorization;

select is((select row(outcome, status, retryable)::text from seen), '(failed,cancelled,f)',
    'the claim ends the lapsed cancellation: failed, status cancelled, not retryable');
select is((select error from seen), 'cancelled: operator stop', 'with the cancellation''s error');
select is(
    (select e.written_by::regrole::text from actae.executions as e
     where e.channel_id = 'tap-cw' and e.key_name = 'k'),
    't_cw_other', 'written_by is the login whose claim ended it');

select * from finish();
rollback;
