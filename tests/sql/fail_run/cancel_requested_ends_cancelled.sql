-- fail_run on a run whose cancellation was requested ends it as cancelled, with error
-- 'cancelled: <reason>', whatever retryable says.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(3);

create temp table c as select * from pg_temp.started_claim('tap-fr3', 'tap-q-fr3');
select actae.cancel_run('tap-fr3', 'customer withdrew');
create temp table f as select * from actae.fail_run('tap-fr3', (select claim_token from c),
    'stopped', true);
select is(status, 'cancelled', 'cancelled, though retryable') from f;
select is(error, 'cancelled: customer withdrew', 'error names the reason') from f;
select ok(due_at is null and finished_at is not null, 'over') from f;

select * from finish();
rollback;
