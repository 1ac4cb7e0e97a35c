-- The runs table's CHECK constraint says which statuses exist and what each requires: an
-- unknown status, a running run without a token, a parked run with a token, a finished run
-- that is still due, a completed run without a result, a failed run without an error are
-- all rejected (23514), and the error names the rule (migration 0019: one constraint,
-- runs_state_check, calls actae._run_state_check, which names the broken rule). The
-- primary key is the channel.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(12);

create function pg_temp.bad(p_set text) returns text
language plpgsql as $$
begin
    perform actae.start_run('tap-rt1', 'a', '1', 'tap-q-rt1');
    execute 'update actae.runs set ' || p_set || ' where channel_id = ''tap-rt1''';
    return 'accepted';
exception when check_violation then
    return 'rejected';
end;
$$;
-- The rule a change breaks, from the error's constraint field (null when accepted).
create function pg_temp.rule(p_set text) returns text
language plpgsql as $$
declare
    v_rule text;
begin
    perform actae.start_run('tap-rt2', 'a', '1', 'tap-q-rt2');
    execute 'update actae.runs set ' || p_set || ' where channel_id = ''tap-rt2''';
    return null;
exception when check_violation then
    get stacked diagnostics v_rule = constraint_name;
    return v_rule;
end;
$$;
select is(pg_temp.bad($$status = 'paused'$$), 'rejected', 'an unknown status');
select is(pg_temp.bad($$status = 'running'$$), 'rejected', 'running without a token');
select is(pg_temp.bad($$claim_token = gen_random_uuid()$$), 'rejected', 'queued with a token');
select is(pg_temp.bad($$status = 'completed', result = '1', finished_at = now()$$), 'rejected',
    'completed but still due');
select is(pg_temp.bad($$status = 'completed', due_at = null, finished_at = now()$$), 'rejected',
    'completed without a result');
select is(pg_temp.bad($$status = 'failed', due_at = null, finished_at = now()$$), 'rejected',
    'failed without an error');
select is(pg_temp.bad($$status = 'sleeping'$$), 'rejected', 'sleeping without a sleep key');
select is(pg_temp.rule($$status = 'running'$$), 'runs_running_check',
    'the error names the rule a running run without a token breaks');
select is(pg_temp.rule($$failures = 6$$), 'runs_counters_check',
    'more failures than attempts breaks the counters rule');
select is(pg_temp.rule($$wake_reason = 'whim'$$), 'runs_wake_reason_check',
    'an unknown wake reason breaks its rule');
select is((select array_agg(conname::text) from pg_constraint
    where conrelid = 'actae.runs'::regclass and contype = 'c'), array['runs_state_check'],
    'one CHECK constraint holds the state machine');
select is((select array_agg(a.attname::text order by a.attnum) from pg_index as i
    inner join pg_attribute as a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
    where i.indrelid = 'actae.runs'::regclass and i.indisprimary), array['channel_id'],
    'the primary key is channel_id');

select * from finish();
rollback;
