-- A channel is created by its first write. It starts at version 0 with state JSON null
-- and head cursor 0; an event moves the head but not the state version.
begin;
\ir ../helpers.psql
select plan(4);

select throws_ok($$select actae.get_channel('tap-new')$$, 'AC404', null,
    'no channel before the first write');
select actae.record_event('tap-new', 'start', '{}');
select results_eq(
    $$select head_cursor, state_version, parent_channel_id, fork_cursor
      from actae.get_channel('tap-new')$$,
    $$values (1::bigint, 0::bigint, null::text, null::bigint)$$,
    'after one event: head 1, version 0, no parent');
select results_eq($$select version, cursor, state from actae.get_state('tap-new')$$,
    $$values (0::bigint, 0::bigint, 'null'::jsonb)$$, 'the state is version 0, JSON null');
select actae.claim_execution('tap-created-by-claim', 'k', 't', '{}');
select results_eq(
    $$select head_cursor, state_version, head_chain from actae.channels
      where channel_id = 'tap-created-by-claim'$$,
    $$values (0::bigint, 0::bigint, ''::text)$$,
    'a channel created by a claim is at head 0, version 0, empty chain');

select * from finish();
rollback;
