-- get_channel reports the head cursor, state version, parent and fork cursor, lineage
-- (ancestors, root first) and the chain value at the head; unknown → AC404, bad id → AC400.
begin;
\ir ../helpers.psql
select plan(5);

select actae.record_event('tap-gc', 'e', '{}');
select actae.transition_state('tap-gc', 't', '{}', '{"s": 1}', 0);
select actae.fork_channel('tap-gc', 2, 'tap-gc-fork');
select actae.fork_channel('tap-gc-fork', 1, 'tap-gc-grand');

select results_eq(
    $$select head_cursor, state_version, parent_channel_id, fork_cursor, lineage
      from actae.get_channel('tap-gc')$$,
    $$values (2::bigint, 1::bigint, null::text, null::bigint, '{}'::text[])$$,
    'a root channel: head 2, version 1, no parent, empty lineage');
select results_eq(
    $$select head_cursor, state_version, parent_channel_id, fork_cursor, lineage
      from actae.get_channel('tap-gc-fork')$$,
    $$values (2::bigint, 1::bigint, 'tap-gc'::text, 2::bigint, array['tap-gc'])$$,
    'a fork: its parent, fork cursor and lineage');
select is((select head_chain_sha256 from actae.get_channel('tap-gc')),
    pg_temp.fold_chain('tap-gc', 2), 'the head chain value');
select throws_ok($$select actae.get_channel('tap-nowhere')$$, 'AC404', null,
    'an unknown channel is AC404');
select throws_ok($$select actae.get_channel('')$$, 'AC400', null, 'an empty channel_id is AC400');

select * from finish();
rollback;
