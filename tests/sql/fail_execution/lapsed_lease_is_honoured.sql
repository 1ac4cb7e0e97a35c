-- A token whose lease has lapsed is still the current one until someone reclaims: its
-- owner may record the failure (retryable or not), and the next claim then sees the
-- recorded outcome (reclaimed, not ambiguous; or failed).
begin;
\ir ../helpers.psql
select plan(4);

create temp table r as select * from actae.claim_execution('tap-flap', 'r', 't', '{}');
create temp table f as select * from actae.claim_execution('tap-flap', 'f', 't', '{}');
select pg_temp.expire(execution_id) from r;
select pg_temp.expire(execution_id) from f;

select is((select row(status, retryable)::text
    from actae.fail_execution(r.execution_id, 'late', r.claim_token, true)),
    '(failed,t)', 'a lapsed, unreclaimed token records a retryable failure') from r;
select is((select row(status, retryable)::text
    from actae.fail_execution(f.execution_id, 'late', f.claim_token, false)),
    '(failed,f)', 'and a final one') from f;
select is((select row(outcome, ambiguous)::text
    from actae.claim_execution('tap-flap', 'r', 't', '{}')),
    '(reclaimed,f)', 'the next claim reclaims the retryable failure, not ambiguous');
select is((select outcome from actae.claim_execution('tap-flap', 'f', 't', '{}')),
    'failed', 'the final failure stays failed');

select * from finish();
rollback;
