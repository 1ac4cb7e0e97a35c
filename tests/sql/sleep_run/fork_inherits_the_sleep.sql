-- A sleep recorded in the source before the fork point passes through in the fork (a run
-- started on the fork finds it as an inherited operation) once its time has come.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(3);

create temp table c as select * from pg_temp.started_claim('tap-sl4', 'tap-q-sl4');
select actae.sleep_run('tap-sl4', (select claim_token from c), 'nap', 60);
select pg_temp.age_parks('tap-sl4');
select actae.fork_channel('tap-sl4', 1, 'tap-sl4-fork');
select actae.start_run('tap-sl4-fork', 'agent', '{"n": 1}', 'tap-q-sl4');
create temp table f as select * from actae.claim_run('tap-q-sl4', 'w');
select is(channel_id, 'tap-sl4-fork', 'the fork''s run is claimed') from f;
select is((select outcome from actae.sleep_run('tap-sl4-fork', (select claim_token from f),
    'nap', 60)), 'elapsed', 'the inherited sleep passes through');
select is((select head_cursor from actae.get_channel('tap-sl4-fork')), 1::bigint,
    'nothing new is recorded in the fork');

select * from finish();
rollback;
