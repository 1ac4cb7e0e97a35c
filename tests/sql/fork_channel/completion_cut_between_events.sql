-- Completions between event N and event N+1 in the source: those completed before event
-- N+1 was recorded are inherited by a fork at N, those completed after are not. The
-- order is exact (a clock), not wall time.
begin;
\ir ../helpers.psql
select plan(4);

select actae.record_event('tap-cut', 'e1', '{}');
create temp table a as select * from actae.claim_execution('tap-cut', 'a', 't', '{}');
create temp table b as select * from actae.claim_execution('tap-cut', 'b', 't', '{}');
select actae.complete_execution(execution_id, claim_token, '"a"') from a;   -- before e2
select actae.record_event('tap-cut', 'e2', '{}');
select actae.complete_execution(execution_id, claim_token, '"b"') from b;   -- after e2
select actae.record_event('tap-cut', 'e3', '{}');
select actae.fork_channel('tap-cut', 1, 'tap-cut-at-1');
select actae.fork_channel('tap-cut', 2, 'tap-cut-at-2');

select is((select outcome from actae.claim_execution('tap-cut-at-1', 'a', 't', '{}')),
    'replayed', 'fork at 1: completed before event 2 is inherited');
select is((select outcome from actae.claim_execution('tap-cut-at-1', 'b', 't', '{}')),
    'claimed', 'fork at 1: completed after event 2 is not');
select is((select outcome from actae.claim_execution('tap-cut-at-2', 'a', 't', '{}')),
    'replayed', 'fork at 2: the earlier completion is inherited');
select is((select outcome from actae.claim_execution('tap-cut-at-2', 'b', 't', '{}')),
    'replayed', 'fork at 2: completed before event 3 is inherited');

select * from finish();
rollback;
