-- list_channels and fork_tree report ledger health: in_flight counts every execution
-- somebody may still be working on, claimed or in_progress (after a heartbeat), not only
-- freshly claimed ones.
begin;
\ir ../helpers.psql
select plan(3);

select actae.claim_execution('tap-lhi', 'a', 't', '{}');
select actae.heartbeat_execution(c.execution_id, c.claim_token)
from actae.claim_execution('tap-lhi', 'b', 't', '{}') as c;
select is((select status from actae.executions where channel_id = 'tap-lhi' and key_name = 'b'),
    'in_progress', 'the heartbeated execution is in_progress');
select is((select row(executions, in_flight)::text from actae.list_channels()
    where channel_id = 'tap-lhi'), '(2,2)',
    'list_channels counts the claimed and the in_progress execution as in flight');

select is((select in_flight from actae.fork_tree('tap-lhi')), 2::bigint,
    'and so does fork_tree');

select * from finish();
rollback;
