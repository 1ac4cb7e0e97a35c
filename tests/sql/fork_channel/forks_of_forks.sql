-- Forks of forks: a fork of fork B inherits through B from B's own source, at a cursor
-- inside B's own events, inside B's inherited prefix, or exactly at B's fork cursor —
-- each sees exactly the events and completions of its prefix.
begin;
\ir ../helpers.psql
select plan(16);

-- Root A: events 1..4; kA1 completed before A's event 2, kA3 before A's event 4.
select actae.record_event('tap-A', 'a', '{"n": 1}');
select pg_temp.completed('tap-A', 'kA1', 't', '"A1"');
select actae.record_event('tap-A', 'a', '{"n": 2}');
select actae.record_event('tap-A', 'a', '{"n": 3}');
select pg_temp.completed('tap-A', 'kA3', 't', '"A3"');
select actae.record_event('tap-A', 'a', '{"n": 4}');
-- B = fork of A at 3; kB completed before B's event 4, kB5 after B's event 5.
select actae.fork_channel('tap-A', 3, 'tap-B');
select pg_temp.completed('tap-B', 'kB', 't', '"B"');
select actae.record_event('tap-B', 'b', '{"n": 4}');
select actae.record_event('tap-B', 'b', '{"n": 5}');
select pg_temp.completed('tap-B', 'kB5', 't', '"B5"');
-- C at B's head, D inside B's inherited prefix, E exactly at B's fork cursor.
select actae.fork_channel('tap-B', 5, 'tap-C');
select actae.fork_channel('tap-B', 2, 'tap-D');
select actae.fork_channel('tap-B', 3, 'tap-E');

-- Which of the four completed keys a claim in p_channel would replay (probed, not kept).
create function pg_temp.sees(p_channel text) returns text
language sql as $$
    select string_agg(k, ',' order by k) from unnest(array['kA1', 'kA3', 'kB', 'kB5']) as k
    where pg_temp.probe_claim(p_channel, k) = 'replayed'
$$;

select results_eq($$select cursor, event_type, payload from actae.list_events('tap-C')$$,
    $$values (1::bigint, 'a'::text, '{"n": 1}'::jsonb), (2, 'a', '{"n": 2}'),
        (3, 'a', '{"n": 3}'), (4, 'b', '{"n": 4}'), (5, 'b', '{"n": 5}')$$,
    'C (B at 5) sees A''s 1..3 then B''s 4..5');
select results_eq($$select * from actae.list_events('tap-C')$$,
    $$select * from actae.list_events('tap-B')$$, 'identical to B''s list');
select results_eq($$select cursor, event_type from actae.list_events('tap-D')$$,
    $$values (1::bigint, 'a'::text), (2, 'a')$$, 'D (B at 2) sees A''s events 1..2');
select results_eq($$select cursor, event_type from actae.list_events('tap-E')$$,
    $$values (1::bigint, 'a'::text), (2, 'a'), (3, 'a')$$,
    'E (B at its fork cursor 3) sees A''s events 1..3');
select results_eq(
    $$select lineage from actae.get_channel('tap-D')$$, $$values (array['tap-A'])$$,
    'D''s lineage resolves to A alone');
select results_eq(
    $$select parent_channel_id, fork_cursor from actae.get_channel('tap-D')$$,
    $$values ('tap-B'::text, 2::bigint)$$, 'while its parent is B at cursor 2');

select is(pg_temp.sees('tap-C'), 'kA1,kA3,kB,kB5', 'C inherits every completion of its prefix');
select is(pg_temp.sees('tap-D'), 'kA1',
    'D inherits only what A completed before A''s event 3');
select is(pg_temp.sees('tap-E'), 'kA1,kA3,kB',
    'E inherits A''s completions up to event 4 and B''s before B''s event 4');
select is(
    (select channel_id from actae.claim_execution('tap-C', 'kA1', 't', '{}')), 'tap-A',
    'a grandchild''s replay returns the row of the channel where it ran');
select is((select outcome from actae.claim_execution('tap-D', 'kA3', 't', '{}')), 'claimed',
    'D may run kA3 again');
select is((select outcome from actae.claim_execution('tap-E', 'kB5', 't', '{}')), 'claimed',
    'E may run kB5 again');

select actae.record_event('tap-E', 'e', '{"n": 4}');
select is((select event_type from actae.list_events('tap-E', 3)), 'e',
    'E records its own event 4');
select is((select count(*) from actae.list_events('tap-B')), 5::bigint,
    'B is unaffected by its forks');
select is((select count(*) from actae.list_events('tap-A')), 4::bigint,
    'A is unaffected by its descendants');
select results_eq($$select cursor, payload from actae.list_events('tap-A', 3)$$,
    $$values (4::bigint, '{"n": 4}'::jsonb)$$, 'A''s own event 4 is visible only in A');

select * from finish();
rollback;
