-- The runs table's CHECK constraints say which statuses exist and what each requires: an
-- unknown status, a running run without a token, a parked run with a token, a finished run
-- that is still due, a completed run without a result, a failed run without an error are
-- all rejected (23514). The primary key is the channel.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(8);

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
select is((select array_agg(a.attname::text order by a.attnum) from pg_index as i
    inner join pg_attribute as a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
    where i.indrelid = 'actae.runs'::regclass and i.indisprimary), array['channel_id'],
    'the primary key is channel_id');

select * from finish();
rollback;
