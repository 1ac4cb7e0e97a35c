-- The audit views know the cancelled status: a cancelled execution's lease is released,
-- tool_stats and ledger_status count it in a column of its own (not as failed).
begin;
\ir ../helpers.psql
select plan(4);

create temp table c as
select * from actae.claim_execution('tap-views-cancel', 'k', 'tap-tool-cancel', '{}');
select actae.fail_execution(execution_id, 'timeout', claim_token, true) from c;
create temp table before as select * from actae.ledger_status;
select actae.cancel_execution((select execution_id from c), 'stop');

select is(
    (select lease_state from actae.execution_leases where channel_id = 'tap-views-cancel'),
    'released', 'a cancelled execution''s lease is released'
);
select is(
    (select row(executions, failed, cancelled)::text from actae.tool_stats
     where tool_name = 'tap-tool-cancel'),
    '(1,0,1)', 'tool_stats counts it as cancelled, not failed'
);
select is(
    (select s.cancelled - b.cancelled from actae.ledger_status as s, before as b),
    1::bigint, 'ledger_status counts one more cancelled execution'
);
select is(
    (select s.failed - b.failed from actae.ledger_status as s, before as b),
    -1::bigint, 'and one failed execution fewer'
);

select * from finish();
rollback;
