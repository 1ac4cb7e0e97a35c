-- A key the source completed after event N+1 was recorded is not inherited by a fork at
-- N: the fork claims it fresh (its own row, fence 1). Nor are executions the source had
-- merely claimed or failed at the cut.
begin;
\ir ../helpers.psql
select plan(6);

select actae.record_event('tap-late', 'e1', '{}');
create temp table pending as select * from actae.claim_execution('tap-late', 'late', 't', '{}');
create temp table failing as select * from actae.claim_execution('tap-late', 'fatal', 't', '{}');
select actae.fail_execution(execution_id, 'no', claim_token, false) from failing;
select actae.record_event('tap-late', 'e2', '{}');
select actae.complete_execution(execution_id, claim_token, '"after e2"') from pending;
select actae.fork_channel('tap-late', 1, 'tap-late-fork');

create temp table fresh as
select * from actae.claim_execution('tap-late-fork', 'late', 't', '{}');
select is(outcome, 'claimed', 'completed after event 2: not inherited, claimed fresh') from fresh;
select is(channel_id, 'tap-late-fork', 'in a row of the fork''s own') from fresh;
select is(fence, 1::bigint, 'starting at fence 1') from fresh;
select is((select outcome from actae.claim_execution('tap-late-fork', 'fatal', 't', '{}')),
    'claimed', 'a failure in the source is not inherited: the fork may run the tool');
select is((select status from actae.get_execution('tap-late', 'late')), 'completed',
    'the source''s own row is untouched');
select is((select count(*) from actae.executions where channel_id = 'tap-late-fork'), 2::bigint,
    'the fork holds just its two new rows');

select * from finish();
rollback;
