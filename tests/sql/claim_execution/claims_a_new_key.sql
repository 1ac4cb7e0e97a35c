-- A key seen for the first time is created and leased to the caller: outcome claimed,
-- status claimed, fence 1, attempt 1, a claim token, not ambiguous, and a lease of
-- lease_seconds on the database clock. The channel is created by this first write.
begin;
\ir ../helpers.psql
select plan(14);

select throws_ok($$select * from actae.get_channel('tap-claim-new')$$, 'AC404', null,
    'the channel does not exist before the first claim');

create temp table before_claim as select clock_timestamp() as at;
create temp table claim as
select * from actae.claim_execution(
    'tap-claim-new', 'charge-1', 'stripe.charge', '{"amount": 500, "to": "acct_1"}', null, 30
);

select is(outcome, 'claimed', 'outcome is claimed') from claim;
select is(status, 'claimed', 'status is claimed') from claim;
select is(fence, 1::bigint, 'fence starts at 1') from claim;
select is(attempt, 1, 'attempt starts at 1') from claim;
select isnt(claim_token, null, 'the owner receives a claim token') from claim;
select is(ambiguous, false, 'a fresh claim is not ambiguous') from claim;
select is(result, null, 'no result yet') from claim;
select ok(
    c.lease_expires_at between b.at + interval '30 seconds'
    and clock_timestamp() + interval '30 seconds',
    'the lease expires lease_seconds after the claim, on the database clock'
) from claim as c, before_claim as b;
select is(params, '{"amount": 500, "to": "acct_1"}'::jsonb, 'params are stored') from claim;

select results_eq(
    $$select channel_id, key_name, tool_name, status::text, claim_token, fence, attempt
      from actae.executions where channel_id = 'tap-claim-new'$$,
    $$select 'tap-claim-new'::text, 'charge-1'::text, 'stripe.charge'::text, 'claimed'::text,
        claim_token, 1::bigint, 1 from claim$$,
    'exactly one row is stored, holding the returned token'
);
select is(
    (select execution_id from actae.executions where channel_id = 'tap-claim-new'),
    execution_id,
    'the returned execution_id identifies the stored row'
) from claim;
select results_eq(
    $$select head_cursor, state_version from actae.get_channel('tap-claim-new')$$,
    $$values (0::bigint, 0::bigint)$$,
    'the first claim created the channel at head cursor 0, version 0'
);
select results_eq(
    $$select version, cursor, state from actae.get_state('tap-claim-new')$$,
    $$values (0::bigint, 0::bigint, 'null'::jsonb)$$,
    'the new channel has state JSON null at version 0'
);

select * from finish();
rollback;
