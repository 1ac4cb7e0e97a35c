-- transition_state and record_event append to one chain: each value by the formula whichever
-- function wrote the event, the head chain the last one, the clock + 1 per event, and a
-- transition's operation_id recorded with its cursor and version.
begin;
\ir ../helpers.psql
select plan(6);

select actae.record_event('tap-tchain', 'user.message', '{"text": "héllo"}');
select actae.transition_state('tap-tchain', 'plan.set', '{"b": 1, "a": [true, null]}',
    '{"plan": ["a"]}', 0);
select actae.record_event('tap-tchain', 'note', '"plain"');
select actae.transition_state('tap-tchain', 'plan.set', '{"step": 2}', '{"plan": []}', 1,
    null, 'op-1');

create temp table expected as
with e1 as (
    select pg_temp.sha256_hex(':1:user.message:{"text": "héllo"}') as c
), e2 as (
    select pg_temp.sha256_hex(c || ':2:plan.set:{"a": [true, null], "b": 1}') as c from e1
), e3 as (
    select pg_temp.sha256_hex(c || ':3:note:"plain"') as c from e2
), e4 as (
    select pg_temp.sha256_hex(c || ':4:plan.set:{"step": 2}') as c from e3
)
select 1::bigint as cursor, c from e1
union all select 2, c from e2
union all select 3, c from e3
union all select 4, c from e4;

select results_eq(
    $$select cursor, chain_sha256 from actae.list_events('tap-tchain') order by cursor$$,
    $$select cursor, c from expected order by cursor$$,
    'events of record_event and transition_state chain by one formula');
select is((select head_chain_sha256 from actae.get_channel('tap-tchain')),
    (select c from expected where cursor = 4), 'the head chain is the last transition''s');
select is(pg_temp.fold_chain('tap-tchain', 4), (select c from expected where cursor = 4),
    'folding list_events reproduces it');
select results_eq(
    $$select cursor, clock from actae.events where channel_id = 'tap-tchain' order by cursor$$,
    $$values (1::bigint, 1::bigint), (2, 2), (3, 3), (4, 4)$$,
    'every event takes the channel clock + 1, whichever function wrote it');
select results_eq(
    $$select operation_id, kind::text, cursor, version from actae.operations
      where channel_id = 'tap-tchain'$$,
    $$values ('op-1'::text, 'transition_state'::text, 4::bigint, 2::bigint)$$,
    'the operation_id is recorded with the transition''s cursor and version');
select results_eq(
    $$select outcome, cursor, version from actae.transition_state('tap-tchain', 'plan.set',
      '{"step": 2}', '{"plan": []}', 0, null, 'op-1')$$,
    $$values ('replayed'::text, 4::bigint, 2::bigint)$$,
    'and replays it');

select * from finish();
rollback;
