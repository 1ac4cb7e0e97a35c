-- get_state at_cursor in a fork's inherited prefix is the latest snapshot at or before that
-- cursor, not the latest one the fork inherits; at a cursor past a snapshot of the fork's
-- own it is that one, not an inherited one; and a fork of that fork inherits the snapshot at
-- or before its own cut (version and state), inside the prefix or in the fork's own events.
begin;
\ir ../helpers.psql
select plan(11);

select actae.transition_state('tap-gsf', 't', '{}', '{"v": 1}', 0);   -- cursor 1, version 1
select actae.record_event('tap-gsf', 'e', '{}');                      -- cursor 2
select actae.transition_state('tap-gsf', 't', '{}', '{"v": 2}', 1);   -- cursor 3, version 2
select actae.record_event('tap-gsf', 'e', '{}');                      -- cursor 4
select actae.fork_channel('tap-gsf', 4, 'tap-gsf-f');
select actae.record_event('tap-gsf-f', 'e', '{}');                    -- the fork's cursor 5

select results_eq($$select version, cursor, state from actae.get_state('tap-gsf-f', null, 2)$$,
    $$values (1::bigint, 1::bigint, '{"v": 1}'::jsonb)$$,
    'at cursor 2 of the prefix: version 1, not the inherited latest');
select results_eq($$select version, cursor, state from actae.get_state('tap-gsf-f', null, 0)$$,
    $$values (0::bigint, 0::bigint, 'null'::jsonb)$$, 'at cursor 0: version 0');
select results_eq($$select version, cursor, state from actae.get_state('tap-gsf-f', null, 3)$$,
    $$values (2::bigint, 3::bigint, '{"v": 2}'::jsonb)$$, 'at cursor 3: version 2');
select results_eq($$select version, cursor, state from actae.get_state('tap-gsf-f', null, 5)$$,
    $$values (2::bigint, 3::bigint, '{"v": 2}'::jsonb)$$,
    'at the fork''s own head: the latest inherited snapshot');

create temp table sub as select * from actae.fork_channel('tap-gsf-f', 2, 'tap-gsf-g');
select is(version, 1::bigint, 'a fork of the fork at cursor 2 inherits version 1') from sub;
select results_eq($$select version, cursor, state from actae.get_state('tap-gsf-g')$$,
    $$values (1::bigint, 1::bigint, '{"v": 1}'::jsonb)$$, 'and its state');
select results_eq(
    $$select cursor, version from actae.transition_state('tap-gsf-g', 't', '{}', '{"v": "g"}', 1)$$,
    $$values (3::bigint, 2::bigint)$$, 'and continues from version 1');

-- The fork's own snapshot (cursor 6, version 3), then an event (cursor 7).
select actae.transition_state('tap-gsf-f', 't', '{}', '{"v": "f3"}', 2);
select actae.record_event('tap-gsf-f', 'e', '{}');
select results_eq($$select version, cursor, state from actae.get_state('tap-gsf-f', null, 7)$$,
    $$values (3::bigint, 6::bigint, '{"v": "f3"}'::jsonb)$$,
    'past the fork''s own snapshot: that snapshot, not an inherited one');
select results_eq($$select version, cursor, state from actae.get_state('tap-gsf-f', null, 5)$$,
    $$values (2::bigint, 3::bigint, '{"v": 2}'::jsonb)$$,
    'before it: the inherited one');
create temp table own as select * from actae.fork_channel('tap-gsf-f', 7, 'tap-gsf-h');
select is(version, 3::bigint, 'a fork of the fork at its head inherits the fork''s version 3')
from own;
select results_eq($$select version, cursor, state from actae.get_state('tap-gsf-h')$$,
    $$values (3::bigint, 6::bigint, '{"v": "f3"}'::jsonb)$$, 'and its state');

select * from finish();
rollback;
