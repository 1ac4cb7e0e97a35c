-- get_state returns the latest snapshot when both selectors are null, snapshot `version`,
-- or the latest snapshot at or before `at_cursor`; version 0 is JSON null at cursor 0.
begin;
\ir ../helpers.psql
select plan(8);

select actae.record_event('tap-st', 'e', '{}');                      -- cursor 1
select actae.transition_state('tap-st', 't', '{}', '{"v": 1}', 0);    -- cursor 2, version 1
select actae.record_event('tap-st', 'e', '{}');                      -- cursor 3
select actae.transition_state('tap-st', 't', '{}', '{"v": 2}', 1);    -- cursor 4, version 2
select actae.record_event('tap-st', 'e', '{}');                      -- cursor 5

select results_eq($$select version, cursor, state from actae.get_state('tap-st')$$,
    $$values (2::bigint, 4::bigint, '{"v": 2}'::jsonb)$$, 'latest');
select results_eq($$select version, cursor, state from actae.get_state('tap-st', 1)$$,
    $$values (1::bigint, 2::bigint, '{"v": 1}'::jsonb)$$, 'by version 1');
select results_eq($$select version, cursor, state from actae.get_state('tap-st', 0)$$,
    $$values (0::bigint, 0::bigint, 'null'::jsonb)$$, 'version 0 is JSON null at cursor 0');
select results_eq($$select version, cursor, state from actae.get_state('tap-st', null, 1)$$,
    $$values (0::bigint, 0::bigint, 'null'::jsonb)$$, 'at cursor 1, before any snapshot');
select results_eq($$select version, cursor, state from actae.get_state('tap-st', null, 2)$$,
    $$values (1::bigint, 2::bigint, '{"v": 1}'::jsonb)$$, 'at the snapshot''s own cursor');
select results_eq($$select version, cursor, state from actae.get_state('tap-st', null, 3)$$,
    $$values (1::bigint, 2::bigint, '{"v": 1}'::jsonb)$$, 'at a cursor between snapshots');
select results_eq($$select version, cursor, state from actae.get_state('tap-st', null, 5)$$,
    $$values (2::bigint, 4::bigint, '{"v": 2}'::jsonb)$$, 'at the head');
select results_eq($$select version, cursor, state from actae.get_state('tap-st', null, 0)$$,
    $$values (0::bigint, 0::bigint, 'null'::jsonb)$$, 'at cursor 0');

select * from finish();
rollback;
