-- A replayed receipt (by operation_id or by new_channel_id) describes the fork as it was
-- made: the inherited state version and prefix_sha256 = the chain value at the fork cursor,
-- even after the fork has recorded events and transitions of its own, so it stays the
-- verifiable fold of the inherited prefix.
begin;
\ir ../helpers.psql
select plan(6);

select actae.transition_state('tap-rrm', 't', '{"n": 1}', '{"v": 1}', 0);   -- 1, version 1
select actae.record_event('tap-rrm', 'e', '{"n": 2}');                       -- 2
create temp table first as
select * from actae.fork_channel('tap-rrm', 2, 'tap-rrm-f', 'op-rrm');
-- The fork moves on: an event and two transitions of its own.
select actae.record_event('tap-rrm-f', 'e', '{"n": 3}');
select actae.transition_state('tap-rrm-f', 't', '{"n": 4}', '{"v": 2}', 1);
select actae.transition_state('tap-rrm-f', 't', '{"n": 5}', '{"v": 3}', 2);

create temp table by_op as
select * from actae.fork_channel('tap-rrm', 2, 'tap-rrm-f', 'op-rrm');
create temp table by_id as
select * from actae.fork_channel('tap-rrm', 2, 'tap-rrm-f');

select results_eq($$select outcome, version, fork_cursor from by_op$$,
    $$values ('replayed'::text, 1::bigint, 2::bigint)$$,
    'replayed by operation_id: the inherited version 1, not the fork''s current 3');
select results_eq($$select outcome, version, fork_cursor from by_id$$,
    $$values ('replayed'::text, 1::bigint, 2::bigint)$$,
    'replayed by new_channel_id: the same');
select is(b.prefix_sha256, f.prefix_sha256,
    'the replay by operation_id carries the original prefix_sha256')
from by_op as b, first as f;
select is(b.prefix_sha256, f.prefix_sha256, 'and so does the replay by new_channel_id')
from by_id as b, first as f;
select is(prefix_sha256, pg_temp.fold_chain('tap-rrm-f', 2),
    'which is still the fold of the fork''s events 1..2') from by_op;
select isnt(prefix_sha256, (select head_chain_sha256 from actae.get_channel('tap-rrm-f')),
    'not the fork''s head chain value') from by_op;

select * from finish();
rollback;
