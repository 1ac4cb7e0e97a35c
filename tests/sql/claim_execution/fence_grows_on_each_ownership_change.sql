-- The fence (and the attempt) grow by exactly one on every change of ownership, and only
-- then: in_progress answers, replays and failed answers leave them alone.
begin;
\ir ../helpers.psql
select plan(7);

create temp table claims (step integer, outcome text, fence bigint, attempt integer,
    execution_id uuid, claim_token uuid);
insert into claims
select 1, outcome, fence, attempt, execution_id, claim_token
from actae.claim_execution('tap-fence', 'k', 'tool', '{}');
insert into claims
select 2, outcome, fence, attempt, execution_id, claim_token
from actae.claim_execution('tap-fence', 'k', 'tool', '{}');
select pg_temp.expire(execution_id) from claims where step = 1;
insert into claims
select 3, outcome, fence, attempt, execution_id, claim_token
from actae.claim_execution('tap-fence', 'k', 'tool', '{}');
select actae.fail_execution(execution_id, 'boom', claim_token) from claims where step = 3;
insert into claims
select 4, outcome, fence, attempt, execution_id, claim_token
from actae.claim_execution('tap-fence', 'k', 'tool', '{}');
select actae.complete_execution(execution_id, claim_token, '"done"') from claims where step = 4;
insert into claims
select 5, outcome, fence, attempt, execution_id, claim_token
from actae.claim_execution('tap-fence', 'k', 'tool', '{}');

select results_eq(
    $$select step, outcome, fence, attempt from claims order by step$$,
    $$values (1, 'claimed'::text, 1::bigint, 1), (2, 'in_progress', 1, 1),
        (3, 'reclaimed', 2, 2), (4, 'reclaimed', 3, 3), (5, 'replayed', 3, 3)$$,
    'claimed 1, in_progress 1, reclaimed (lapse) 2, reclaimed (retryable failure) 3, replay 3'
);
select is((select count(distinct execution_id) from claims), 1::bigint,
    'all claims address one execution');
select is((select count(distinct claim_token) from claims where claim_token is not null),
    3::bigint, 'three owners, three distinct tokens');
select is((select fence from actae.executions where channel_id = 'tap-fence'), 3::bigint,
    'the stored fence is 3');

-- A non-retryable failure: the failed answer does not move the fence either.
create temp table nr as select * from actae.claim_execution('tap-fence', 'nr', 'tool', '{}');
select actae.fail_execution(execution_id, 'fatal', claim_token, false) from nr;
create temp table nr2 as select * from actae.claim_execution('tap-fence', 'nr', 'tool', '{}');
select is(outcome, 'failed', 'failed outcome') from nr2;
select is(fence, 1::bigint, 'a failed answer keeps fence 1') from nr2;
select is(attempt, 1, 'and attempt 1') from nr2;

select * from finish();
rollback;
