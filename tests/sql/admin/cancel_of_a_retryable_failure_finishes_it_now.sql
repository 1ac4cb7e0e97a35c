-- cancel_execution of a retryably failed execution ends it now: status cancelled, not
-- retryable, error 'cancelled: <reason>', and finished_at the time of the cancellation
-- (not the earlier failure), so its key's lifetime (set_key_ttl) starts from the cancel.
begin;
\ir ../helpers.psql
select plan(3);

select actae.fail_execution(c.execution_id, 'flaky', c.claim_token, true)
from actae.claim_execution('tap-crf', 'k', 't', '{}') as c;
update actae.executions set finished_at = finished_at - interval '3 days',
    claimed_at = claimed_at - interval '3 days', created_at = created_at - interval '3 days'
where channel_id = 'tap-crf';
select clock_timestamp() as before_cancel \gset
create temp table c as
select * from actae.cancel_execution(
    (select execution_id from actae.executions where channel_id = 'tap-crf'), 'stop');

select is((select row(status, retryable, error)::text from c),
    '(cancelled,f,"cancelled: stop")', 'the failure becomes a final cancellation');
select cmp_ok((select finished_at from actae.executions where channel_id = 'tap-crf'),
    '>=', :'before_cancel'::timestamptz, 'finished_at is the time of the cancellation');
select is((select finished_at from actae.executions where channel_id = 'tap-crf'),
    (select cancel_requested_at from actae.executions where channel_id = 'tap-crf'),
    'the same instant the request was recorded');

select * from finish();
rollback;
