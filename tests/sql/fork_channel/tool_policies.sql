-- tool_policies map a tool name to replay (the default: inherited results replay), live
-- (the fork re-executes that tool: a fresh claim in the fork) or block (AC403
-- fork_tool_blocked, but only when the claim would run the tool: an inherited completed
-- result still replays). Tools not named replay.
begin;
\ir ../helpers.psql
select plan(12);

select actae.record_event('tap-pol', 'start', '{}');
select pg_temp.completed('tap-pol', 'search-1', 'web.search', '{"hits": 3}');
select pg_temp.completed('tap-pol', 'charge-1', 'stripe.charge', '{"id": "ch_1"}');
select pg_temp.completed('tap-pol', 'email-1', 'email.send', '"sent"');
select actae.record_event('tap-pol', 'done', '{}');
create temp table receipt as
select * from actae.fork_channel('tap-pol', 2, 'tap-pol-fork', null,
    '{"web.search": "live", "stripe.charge": "block"}');

select is(tool_policies, '{"web.search": "live", "stripe.charge": "block"}'::jsonb,
    'the receipt carries the policies') from receipt;

create temp table search as
select * from actae.claim_execution('tap-pol-fork', 'search-1', 'web.search', '{}');
select is(outcome, 'claimed', 'live: the fork re-executes an inherited search') from search;
select is(channel_id, 'tap-pol-fork', 'in a row of the fork''s own') from search;
select is(fence, 1::bigint, 'with a fresh fence') from search;
select is((select outcome from actae.claim_execution('tap-pol', 'search-1', 'web.search', '{}')),
    'replayed', 'the source still replays its own search');

select is(
    (select outcome from actae.claim_execution('tap-pol-fork', 'charge-1', 'stripe.charge', '{}')),
    'replayed', 'block: an inherited completed charge still replays');
create temp table digest_before as select pg_temp.ledger_digest() as d;
select throws_ok(
    $$select actae.claim_execution('tap-pol-fork', 'charge-2', 'stripe.charge', '{}')$$,
    'AC403', null, 'block: a charge the fork would run is AC403');
select is(
    pg_temp.error_of($$select actae.claim_execution('tap-pol-fork', 'charge-2',
        'stripe.charge', '{}')$$) -> 'detail',
    '{"channel_id": "tap-pol-fork", "tool_name": "stripe.charge", "key_name": "charge-2"}'::jsonb,
    'DETAIL names the channel, tool and key');
select is(pg_temp.ledger_digest(), d, 'the blocked claim wrote nothing') from digest_before;

select is(
    (select outcome from actae.claim_execution('tap-pol-fork', 'email-1', 'email.send', '{}')),
    'replayed', 'a tool not named in the policies replays (default)');
select is(
    (select outcome from actae.claim_execution('tap-pol-fork', 'email-2', 'email.send', '{}')),
    'claimed', 'and a new key of it runs normally');
select is(
    (select outcome from actae.claim_execution('tap-pol', 'charge-2', 'stripe.charge', '{}')),
    'claimed', 'the policy applies to the fork only, never to its source');

select * from finish();
rollback;
