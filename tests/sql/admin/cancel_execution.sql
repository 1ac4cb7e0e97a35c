-- actae.cancel_execution: a request the owner sees at its next heartbeat; an abandoned
-- cancelled execution ends as status cancelled at the next claim (a cancelled key replays
-- as outcome failed, status cancelled).
begin;
\ir ../helpers.psql
select plan(24);

create temp table c1 as
select * from actae.claim_execution('tap-cancel', 'k1', 'charge', '{"amount": 5}');
create temp table req as
select * from actae.cancel_execution((select execution_id from c1), 'customer asked');
select is(status, 'claimed', 'cancel leaves a claimed execution claimed') from req;
select is(cancel_requested, true, 'cancel_requested is returned') from req;
select is(cancel_reason, 'customer asked', 'with the reason') from req;
select is(claim_token, null, 'cancel never returns a claim token') from req;

create temp table beat as
select * from actae.heartbeat_execution(
    (select execution_id from c1), (select claim_token from c1)
);
select is(cancel_requested, true, 'the owner''s next heartbeat sees cancel_requested')
from beat;
select is(status, 'in_progress', 'the heartbeat itself still succeeds') from beat;
select is(
    (select cancel_requested from actae.cancel_execution(
        (select execution_id from c1), 'customer asked')),
    true, 'cancelling again with the same reason is a no-op'
);
select is(
    pg_temp.error_of(format('select actae.cancel_execution(%L, %L)',
        (select execution_id from c1), 'another reason')) ->> 'sqlstate',
    'AC409', 'cancelling again with another reason is AC409'
);

-- The owner is gone: its lease lapses; the next claim fails it instead of reclaiming.
select pg_temp.expire((select execution_id from c1));
create temp table after as
select * from actae.claim_execution('tap-cancel', 'k1', 'charge', '{"amount": 5}');
select is(outcome, 'failed', 'a claim of an abandoned cancelled execution returns failed')
from after;
select is(status, 'cancelled', 'the abandoned execution''s status is cancelled') from after;
select is(error, 'cancelled: customer asked', 'error is cancelled: <reason>') from after;
select is(retryable, false, 'not retryable') from after;
select is(claim_token, null, 'nobody owns it') from after;
select is(
    (select outcome from actae.claim_execution('tap-cancel', 'k1', 'charge', '{"amount": 5}')),
    'failed', 'the cancelled key keeps replaying as failed'
);
select is(
    pg_temp.error_of(format('select actae.complete_execution(%L, %L, %L)',
        (select execution_id from c1), (select claim_token from c1), '{}')) ->> 'sqlstate',
    'AC409', 'the old owner can no longer complete it'
);

-- A live owner that completes anyway wins: the effect happened.
create temp table c2 as
select * from actae.claim_execution('tap-cancel', 'k2', 'charge', '{"amount": 6}');
select actae.cancel_execution((select execution_id from c2), 'too late');
select is(
    (select status from actae.complete_execution(
        (select execution_id from c2), (select claim_token from c2), '{"ok": true}')),
    'completed', 'an owner may still complete a cancel-requested execution'
);
select is(
    pg_temp.error_of(format('select actae.cancel_execution(%L, %L)',
        (select execution_id from pg_temp.completed('tap-cancel', 'k3', 'charge', '{}')),
        'why')) ->> 'sqlstate',
    'AC409', 'cancelling a completed execution is AC409'
);

-- Failed retryably: nobody owns it, so it is cancelled at once.
create temp table c4 as
select * from actae.claim_execution('tap-cancel', 'k4', 'charge', '{"amount": 7}');
select actae.fail_execution((select execution_id from c4), 'timeout',
    (select claim_token from c4), true);
create temp table f4 as
select * from actae.cancel_execution((select execution_id from c4), 'stop retrying');
select is(status || '/' || error || '/' || retryable::text,
    'cancelled/cancelled: stop retrying/false',
    'a retryably failed execution is cancelled for good at once') from f4;
select is(
    (select outcome from actae.claim_execution('tap-cancel', 'k4', 'charge', '{"amount": 7}')),
    'failed', 'and its next claim returns failed'
);
select is(
    (select status from actae.get_execution((select execution_id from c4))),
    'cancelled', 'with status cancelled'
);

select is(
    pg_temp.error_of(format('select actae.cancel_execution(%L, %L)',
        gen_random_uuid(), 'x')) ->> 'sqlstate',
    'AC404', 'unknown execution is AC404'
);
select is(
    pg_temp.error_of(format('select actae.cancel_execution(%L, %L)',
        (select execution_id from c2), '')) ->> 'sqlstate',
    'AC400', 'an empty reason is AC400'
);

-- Roles: operators cancel, agents cannot.
select execution_id as c2_id from c2 \gset
set local role actae_agent;
select throws_ok(
    format('select actae.cancel_execution(%L, %L)', :'c2_id', 'x'),
    '42501', null, 'actae_agent cannot cancel'
);
reset role;
set local role actae_operator;
select is(
    (select cancel_requested from actae.cancel_execution(
        (select execution_id from actae.claim_execution('tap-cancel', 'k5', 'x', '{}')),
        'operator')),
    true, 'actae_operator can cancel'
);
reset role;

select * from finish();
rollback;
