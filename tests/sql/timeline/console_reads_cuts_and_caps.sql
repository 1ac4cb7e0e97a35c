-- The console reads keep to a fork's cut and to their caps. A completion the
-- source made after the fork is in neither the fork's timeline nor its decision_trail;
-- decision_trail lists at most max_results results; a timeline page after after_clock holds
-- no point at that clock (an execution claimed then and completed later shows only its
-- completion); diff_states with exactly max_changes changes is not truncated.
begin;
\ir ../helpers.psql
select plan(7);

select actae.record_event('tap-z2c', 'started', '{}');
select pg_temp.completed('tap-z2c', 'early', 'search', '{"n": 1}');
select pg_temp.completed('tap-z2c', 'early2', 'search', '{"n": 2}');
select actae.record_event('tap-z2c', 'planned', '{}');
select actae.fork_channel('tap-z2c', 2, 'tap-z2c-f');
select pg_temp.completed('tap-z2c', 'late', 'search', '{"late": true}');
select actae.record_event('tap-z2c', 'after', '{}');
select actae.record_event('tap-z2c-f', 'decided', '{}');

select is((select count(*) from actae.timeline('tap-z2c-f') where key_name = 'late'),
    0::bigint, 'the fork''s timeline has no completion its source made after the fork');
select is(
    (select array_agg(r ->> 'key_name' order by r ->> 'key_name')
     from actae.decision_trail('tap-z2c-f', 3) as d,
        jsonb_array_elements(d.tool_results) as r),
    array['early', 'early2'],
    'the fork''s decision_trail has the inherited results, not the source''s later one');
select is(
    (select jsonb_array_length(tool_results) from actae.decision_trail('tap-z2c-f', 3, 1)),
    1, 'decision_trail lists at most max_results results');

-- e1 (clock 1), k claimed, e2 (clock 2), k completed (clock 2), e3 (clock 3)
select actae.record_event('tap-z2c-t', 'e1', '{}');
create temp table k as select * from actae.claim_execution('tap-z2c-t', 'k', 'search', '{}');
select actae.record_event('tap-z2c-t', 'e2', '{}');
select actae.complete_execution(execution_id, claim_token, '"ok"') from k;
select actae.record_event('tap-z2c-t', 'e3', '{}');
select results_eq(
    $$select kind, clock, coalesce(event_type, key_name) from actae.timeline('tap-z2c-t')$$,
    $$values ('event'::text, 1::bigint, 'e1'), ('claimed', 1, 'k'), ('event', 2, 'e2'),
        ('completed', 2, 'k'), ('event', 3, 'e3')$$,
    'the whole timeline');
select results_eq(
    $$select kind, clock, coalesce(event_type, key_name)
      from actae.timeline('tap-z2c-t', 1)$$,
    $$values ('event'::text, 2::bigint, 'e2'), ('completed', 2, 'k'), ('event', 3, 'e3')$$,
    'after clock 1: nothing at clock 1');

select actae.transition_state('tap-z2c-a', 's', '{}', '{"a": 1, "b": 2}', 0);
select actae.transition_state('tap-z2c-b', 's', '{}', '{"a": 2, "b": 3}', 0);
select results_eq(
    $$select truncated, jsonb_array_length(changes)
      from actae.diff_states('tap-z2c-a', 'tap-z2c-b', 2)$$,
    $$values (false, 2)$$, 'exactly max_changes changes: all listed, not truncated');
select results_eq(
    $$select truncated, jsonb_array_length(changes)
      from actae.diff_states('tap-z2c-a', 'tap-z2c-b', 1)$$,
    $$values (true, 1)$$, 'one more than max_changes: truncated');

select * from finish();
rollback;
