-- retryable = false, or the last of max_attempts failures, fails the run for good: status
-- failed, due_at null, finished_at set, the owner keeps answering with its token (the same
-- error again is a no-op; another call is AC409).
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(7);

create temp table p as select * from pg_temp.started_claim('tap-fr2', 'tap-q-fr2');
create temp table f as select * from actae.fail_run('tap-fr2', (select claim_token from p),
    'card declined', false);
select is(status, 'failed', 'not retryable: failed') from f;
select ok(due_at is null and finished_at is not null, 'no longer due, finished') from f;
select is((select status from actae.fail_run('tap-fr2', (select claim_token from p),
    'card declined', false)), 'failed', 'the same fail again is a no-op success');
select throws_ok($$select actae.fail_run('tap-fr2', claim_token, 'other') from p$$, 'AC409',
    null, 'another error is AC409');

create temp table m as select * from pg_temp.started_claim('tap-fr2b', 'tap-q-fr2', 2);
select actae.fail_run('tap-fr2b', (select claim_token from m), 'first');
update actae.runs set due_at = clock_timestamp() where channel_id = 'tap-fr2b';
create temp table m2 as select * from actae.claim_run('tap-q-fr2', 'w');
create temp table last as select * from actae.fail_run('tap-fr2b', (select claim_token from m2),
    'second');
select is(status, 'failed', 'the max_attempts-th failure is final') from last;
select is(failures, 2, 'two failures') from last;
select throws_ok($$select actae.fail_run('tap-fr2', claim_token, 'x') from m$$, 'AC423', null,
    'another run''s token is AC423');

select * from finish();
rollback;
