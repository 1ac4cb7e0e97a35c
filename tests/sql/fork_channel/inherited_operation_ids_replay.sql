-- operation_ids recorded in the inherited prefix replay in the fork (same cursor); one
-- recorded in the source after the cut does not exist in the fork, and one recorded in
-- the fork does not exist in the source.
begin;
\ir ../helpers.psql
select plan(5);

select actae.record_event('tap-fop', 'e', '{"n": 1}', 'op-1');
select actae.transition_state('tap-fop', 't', '{"n": 2}', '{"s": 2}', 0, null, 'op-2');
select actae.record_event('tap-fop', 'e', '{"n": 3}', 'op-3');
select actae.fork_channel('tap-fop', 2, 'tap-fop-fork');

select results_eq($$select cursor, outcome from actae.record_event('tap-fop-fork', 'e',
        '{"n": 1}', 'op-1')$$,
    $$values (1::bigint, 'replayed'::text)$$, 'an inherited record_event replays');
select results_eq($$select cursor, version, outcome from actae.transition_state('tap-fop-fork',
        't', '{"n": 2}', '{"s": 2}', 0, null, 'op-2')$$,
    $$values (2::bigint, 1::bigint, 'replayed'::text)$$, 'an inherited transition replays');
select throws_ok($$select actae.record_event('tap-fop-fork', 'e', '{"n": 99}', 'op-1')$$,
    'AC409', null, 'an inherited operation_id with other content is AC409');
select results_eq($$select cursor, outcome from actae.record_event('tap-fop-fork', 'e',
        '{"n": 3}', 'op-3')$$,
    $$values (3::bigint, 'recorded'::text)$$,
    'the source''s operation after the cut is unknown to the fork: recorded at cursor 3');
select actae.record_event('tap-fop-fork', 'fork-only', '{"f": 1}', 'op-fork');
select results_eq($$select cursor, outcome from actae.record_event('tap-fop', 'other',
        '{"p": 1}', 'op-fork')$$,
    $$values (4::bigint, 'recorded'::text)$$, 'the fork''s operations never reach the source');

select * from finish();
rollback;
