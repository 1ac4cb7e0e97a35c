-- A retryable failure with attempts left queues the run again, due after 1 s × 2^(failures
-- − 1): 1, 2, 4, 8 s for failures 1..4, capped at one hour; wake_reason retry, the token
-- dies, the error is kept. Each retry's claim has wake_reason retry.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(9);

select actae.start_run('tap-fr1', 'a', '1', 'tap-q-fr1', null, 20);
create temp table delays (failures integer, delay interval, status text, reason text,
    token uuid, error text);
do $$
declare
    v_claim actae.run_row;
    v_failed actae.run_row;
    v_at timestamptz;
begin
    for i in 1..4 loop
        update actae.runs set due_at = clock_timestamp() where channel_id = 'tap-fr1';
        select * into v_claim from actae.claim_run('tap-q-fr1', 'w');
        v_at := clock_timestamp();
        select * into v_failed from actae.fail_run('tap-fr1', v_claim.claim_token, 'err ' || i);
        insert into delays values (v_failed.failures, v_failed.due_at - v_at, v_failed.status,
            v_failed.wake_reason, v_failed.claim_token, v_failed.error);
    end loop;
end;
$$;
select ok((select bool_and(delay between interval '1 second' * 2 ^ (failures - 1)
    - interval '50 milliseconds' and interval '1 second' * 2 ^ (failures - 1)
    + interval '50 milliseconds')
    from delays), 'due after 1, 2, 4, 8 seconds');
select is((select array_agg(failures order by failures) from delays), array[1, 2, 3, 4],
    'failures count up');
select ok((select bool_and(status = 'queued' and reason = 'retry') from delays),
    'queued again with wake_reason retry');
select ok((select bool_and(token is null) from delays), 'no token is shown: it died');
select is((select error from delays where failures = 4), 'err 4', 'the error is kept');
select is((select pg_temp.token_of('tap-fr1')), null, 'the stored token is gone');
update actae.runs set due_at = clock_timestamp() where channel_id = 'tap-fr1';
select is((select wake_reason from actae.claim_run('tap-q-fr1', 'w')), 'retry',
    'the retry''s claim says retry');
update actae.runs set failures = 14 where channel_id = 'tap-fr1';
create temp table capped as
select due_at - clock_timestamp() as d, failures
from actae.fail_run('tap-fr1', pg_temp.token_of('tap-fr1'), 'again');
select ok(d between interval '3599 seconds' and interval '3600 seconds',
    'the 15th failure waits one hour, not 2^14 s') from capped;
select is(failures, 15, 'failures 15') from capped;

select * from finish();
rollback;
