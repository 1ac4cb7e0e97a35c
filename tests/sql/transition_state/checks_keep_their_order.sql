-- transition_state checks its arguments inline and calls the check helpers only when a check
-- fails or a JSON value is large enough to need its depth walked: the errors and their order
-- stay those of the helpers (channel_id, event_type, payload, state, expected_version,
-- expected_cursor), JSON nested deeper than 512 levels is refused as payload and as state,
-- and nothing is written.
begin;
\ir ../helpers.psql
select plan(8);

create temp table deep as
select repeat('[', 513)::text || repeat(']', 513) as doc;
create temp table digest_before as select pg_temp.ledger_digest() as d;

select throws_ok(
    $$select actae.transition_state('tap-trorder', 'e', '{}', (select doc::jsonb from deep), 0)$$,
    'AC400', 'state must be JSON nested at most 512 levels deep', 'a state 513 levels deep');
select throws_ok(
    $$select actae.transition_state('tap-trorder', 'e', (select doc::jsonb from deep), '{}', 0)$$,
    'AC400', 'payload must be JSON nested at most 512 levels deep',
    'a payload 513 levels deep');
select throws_ok(
    $$select actae.transition_state('tap-trorder', 'e', (select doc::jsonb from deep),
        (select doc::jsonb from deep), 0)$$,
    'AC400', 'payload must be JSON nested at most 512 levels deep',
    'payload is checked before state');
select throws_ok(
    $$select actae.transition_state('', 'e', (select doc::jsonb from deep), '{}', 0)$$,
    'AC400', 'channel_id must be 1 to 256 bytes of text',
    'channel_id is checked before a deep payload');
select throws_ok(
    $$select actae.transition_state('tap-trorder', 'e', (select doc::jsonb from deep), '{}',
        null)$$,
    'AC400', 'payload must be JSON nested at most 512 levels deep',
    'a deep payload is reported before a missing expected_version');
select throws_ok(
    $$select actae.transition_state('tap-trorder', 'e', '{}', '{}', 0, -1)$$,
    'AC400', 'expected_cursor must be between 0 and 9223372036854775806',
    'a negative expected_cursor is AC400');
select is(pg_temp.ledger_digest(), d, 'nothing was written') from digest_before;
select is(
    (select version from actae.transition_state('tap-trorder', 'e', '{}',
        jsonb_build_object('big', repeat('x', 70000)), 0)),
    1::bigint, 'a 70 KB state (checked by the helper) is written');

select * from finish();
rollback;
