-- decision_trail in a fork: at the fork cursor (the last event it inherits), only what had
-- completed before that event is known, not a completion in the source after it (even one
-- before the fork was made); tool results come root first (inherited before own), and
-- max_results keeps the earliest.
begin;
\ir ../helpers.psql
select plan(3);

select pg_temp.completed('tap-dtf', 'early', 'search', '{"n": 1}');
select pg_temp.record_steps('tap-dtf', 2);
select pg_temp.completed('tap-dtf', 'after2', 'search', '{"n": 2}');
select actae.fork_channel('tap-dtf', 2, 'tap-dtf-f');
select pg_temp.completed('tap-dtf-f', 'own', 'search', '{"n": 3}');
select actae.record_event('tap-dtf-f', 'decided', '{}');

select is((select jsonb_path_query_array(tool_results, '$[*].key_name')
    from actae.decision_trail('tap-dtf-f', 2)), '["early"]'::jsonb,
    'at the fork cursor: only what completed before that event');
select is((select jsonb_path_query_array(tool_results, '$[*].key_name')
    from actae.decision_trail('tap-dtf-f', 3)), '["early", "after2", "own"]'::jsonb,
    'after it: inherited results first, then the fork''s own');
select is((select jsonb_path_query_array(tool_results, '$[*].key_name')
    from actae.decision_trail('tap-dtf-f', 3, 2)), '["early", "after2"]'::jsonb,
    'max_results keeps the earliest');

select * from finish();
rollback;
