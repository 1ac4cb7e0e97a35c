-- cancel_run of a run that is over (failed, or already cancelled) returns it unchanged
-- (outcome unchanged) and writes nothing: a failed run stays failed with its error, a
-- cancelled one keeps its first reason and end time. A second cancel of a running run keeps
-- the time of the first request.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql

select plan(5);

create temp table f as select * from pg_temp.started_claim('tap-ca-f', 'tap-q-ca-f');
select actae.fail_run('tap-ca-f', (select claim_token from f), 'boom', false);
create temp table bf as select pg_temp.run_json('tap-ca-f') as j;
select is((select outcome from actae.cancel_run('tap-ca-f', 'late')), 'unchanged',
    'a failed run: outcome unchanged');
select is(pg_temp.run_json('tap-ca-f'), (select j from bf), 'it stays failed, untouched');

select actae.start_run('tap-ca-c', 'a', '1', 'tap-q-ca-c');
select actae.cancel_run('tap-ca-c', 'first');
create temp table bc as select pg_temp.run_json('tap-ca-c') as j;
select is((select outcome from actae.cancel_run('tap-ca-c', 'second')), 'unchanged',
    'a cancelled run: outcome unchanged');
select is(pg_temp.run_json('tap-ca-c'), (select j from bc),
    'its reason, error and end time are untouched');

select pg_temp.started_claim('tap-ca-r', 'tap-q-ca-r');
select actae.cancel_run('tap-ca-r', 'first');
update actae.runs set cancel_requested_at = cancel_requested_at - interval '1 minute'
where channel_id = 'tap-ca-r';
create temp table br as select pg_temp.run_json('tap-ca-r') as j;
select actae.cancel_run('tap-ca-r', 'again');
select is(pg_temp.run_json('tap-ca-r'), (select j from br),
    'a second cancel of a running run changes nothing (first request time kept)');

select * from finish();
rollback;
