-- A run started with run_at in the future is due then, not now: claim_run skips it until its
-- time; a run_at in the past is due now.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(4);

create temp table s as select * from actae.start_run('tap-sr4', 'a', '1', 'tap-q-sr4',
    clock_timestamp() + interval '1 hour');
select ok(due_at > clock_timestamp() + interval '59 minutes', 'due in an hour') from s;
select is((select count(*) from actae.claim_run('tap-q-sr4', 'w')), 0::bigint,
    'not claimable now');
update actae.runs set due_at = clock_timestamp() where channel_id = 'tap-sr4';
select is((select channel_id from actae.claim_run('tap-q-sr4', 'w')), 'tap-sr4',
    'claimable once its time came');
create temp table p as select * from actae.start_run('tap-sr4b', 'a', '1', 'tap-q-sr4',
    '2000-01-01');
select ok(due_at > '2001-01-01', 'a past run_at means now') from p;

select * from finish();
rollback;
