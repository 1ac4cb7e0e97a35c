-- Reusing an operation_id with the same event_type, payload and state replays the
-- original (same cursor and version, outcome replayed) whatever the guards say now;
-- a different state (or payload or event_type) is AC409.
begin;
\ir ../helpers.psql
select plan(7);

create temp table first as
select * from actae.transition_state('tap-trop', 'set', '{"p": 1}', '{"s": 1}', 0, null, 'op-1');
select actae.transition_state('tap-trop', 'set', '{"p": 2}', '{"s": 2}', 1);
create temp table again as
select * from actae.transition_state('tap-trop', 'set', '{"p": 1}', '{"s": 1}', 0, 0, 'op-1');

select is(outcome, 'replayed', 'the retry replays despite stale guards') from again;
select is(a.cursor, f.cursor, 'the original cursor') from again as a, first as f;
select is(a.version, f.version, 'the original version') from again as a, first as f;
select results_eq($$select head_cursor, state_version from actae.get_channel('tap-trop')$$,
    $$values (2::bigint, 2::bigint)$$, 'nothing was appended');
select throws_ok(
    $$select actae.transition_state('tap-trop', 'set', '{"p": 1}', '{"s": 9}', 2, null, 'op-1')$$,
    'AC409', null, 'a different state under the same operation_id is AC409');
select throws_ok(
    $$select actae.transition_state('tap-trop', 'set', '{"p": 9}', '{"s": 1}', 2, null, 'op-1')$$,
    'AC409', null, 'a different payload is AC409');
select throws_ok(
    $$select actae.transition_state('tap-trop', 'other', '{"p": 1}', '{"s": 1}', 2, null, 'op-1')$$,
    'AC409', null, 'a different event_type is AC409');

select * from finish();
rollback;
