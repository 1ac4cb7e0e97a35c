-- A fork's list_events includes its inherited prefix followed by its own events, as one
-- gapless sequence that pages correctly across the boundary (and across generations).
begin;
\ir ../helpers.psql
select plan(6);

select pg_temp.record_steps('tap-lef', 4);
select actae.fork_channel('tap-lef', 2, 'tap-lef-fork');
select actae.record_event('tap-lef-fork', 'own', '{"n": 3}');
select actae.record_event('tap-lef-fork', 'own', '{"n": 4}');
select actae.fork_channel('tap-lef-fork', 3, 'tap-lef-grand');
select actae.record_event('tap-lef-grand', 'grand', '{"n": 4}');

select results_eq($$select cursor, event_type from actae.list_events('tap-lef-fork')$$,
    $$values (1::bigint, 'step'::text), (2, 'step'), (3, 'own'), (4, 'own')$$,
    'prefix 1..2 from the source, then the fork''s own 3..4');
select results_eq($$select cursor, event_type from actae.list_events('tap-lef-fork', 1, 2)$$,
    $$values (2::bigint, 'step'::text), (3, 'own')$$,
    'a page that starts in the prefix continues into the fork''s own events');
select results_eq($$select cursor from actae.list_events('tap-lef-fork', 2)$$,
    $$values (3::bigint), (4)$$, 'after_cursor at the fork cursor lists only own events');
select results_eq($$select cursor, event_type from actae.list_events('tap-lef-grand')$$,
    $$values (1::bigint, 'step'::text), (2, 'step'), (3, 'own'), (4, 'grand')$$,
    'a grandchild lists the root''s, its parent''s and its own events');
select results_eq($$select cursor from actae.list_events('tap-lef-grand', 0, 3)$$,
    $$values (1::bigint), (2), (3)$$, 'max_events caps across generations');
select is(pg_temp.fold_chain('tap-lef-grand', 4),
    (select head_chain_sha256 from actae.get_channel('tap-lef-grand')),
    'the chain folded over the whole list is the grandchild''s head chain');

select * from finish();
rollback;
