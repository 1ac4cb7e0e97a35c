-- decision_trail at a cursor: the lineage, the event, the state as of that cursor, and the
-- tool results completed before that event was recorded — in a fork, inherited ones
-- included, later ones (in the source or the fork) not.
begin;
\ir ../helpers.psql
\ir ../console_helpers.psql
select plan(7);

select pg_temp.story('tap-dt');
select actae.fork_channel('tap-dt', 2, 'tap-dt-f');
select pg_temp.completed('tap-dt-f', 'late', 'search', '{"late": true}');
select actae.record_event('tap-dt-f', 'decided', '{"choice": "b"}');
select pg_temp.completed('tap-dt-f', 'after', 'search', '{}');

select results_eq(
    $$select event ->> 'event_type', state, jsonb_array_length(tool_results)
      from actae.decision_trail('tap-dt', 1)$$,
    $$values ('started', 'null'::jsonb, 0)$$,
    'at cursor 1 nothing had completed yet and the state was empty');
select results_eq(
    $$select event ->> 'event_type', state_version, state -> 'plan',
        tool_results -> 0 ->> 'key_name'
      from actae.decision_trail('tap-dt', 2)$$,
    $$values ('planned', 1::bigint, '{"step": 1}'::jsonb, 'search:1')$$,
    'at cursor 2: the plan state and the search result known before it');
select is((select lineage from actae.decision_trail('tap-dt-f', 3)),
    '[{"channel_id": "tap-dt", "cursor": 2}, {"channel_id": "tap-dt-f", "cursor": 3}]'::jsonb,
    'the fork''s lineage, root first');
select is(
    (select array_agg(r ->> 'key_name' order by r ->> 'key_name')
     from actae.decision_trail('tap-dt-f', 3) as d, jsonb_array_elements(d.tool_results) as r),
    array['late', 'search:1'],
    'in the fork: the inherited result and the one completed before the event, not later ones');
select is(
    (select tool_results -> 0 ->> 'source_channel_id' from actae.decision_trail('tap-dt-f', 3)),
    'tap-dt', 'an inherited result names the channel it comes from');
select is((select event ->> 'source_channel_id' from actae.decision_trail('tap-dt-f', 2)),
    'tap-dt', 'an inherited event comes from the source');
select results_eq(
    $$select event, state from actae.decision_trail('tap-dt', 0)$$,
    $$values (null::jsonb, 'null'::jsonb)$$, 'cursor 0: no event, the empty state');

select * from finish();
rollback;
