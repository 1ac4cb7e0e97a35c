-- cancel_run on a running run only sets cancel_requested (outcome cancel_requested): the
-- owner keeps its lease; a second cancel keeps the first reason. A run that is over is
-- returned unchanged (outcome unchanged). An unknown run is AC404; a bad reason is AC400.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(7);

create temp table c as select * from pg_temp.started_claim('tap-ca2', 'tap-q-ca2');
create temp table x as select * from actae.cancel_run('tap-ca2', 'first');
select is(outcome, 'cancel_requested', 'outcome cancel_requested') from x;
select ok(status = 'running' and cancel_requested and cancel_reason = 'first',
    'still running, cancellation requested') from x;
select is((select cancel_reason from actae.cancel_run('tap-ca2', 'second')), 'first',
    'the first reason is kept');
select actae.complete_run('tap-ca2', (select claim_token from c), '"done anyway"');
select is((select status from actae.get_run('tap-ca2')), 'completed',
    'an agent that finished anyway completes the run');
select is((select outcome from actae.cancel_run('tap-ca2', 'late')), 'unchanged',
    'a finished run is unchanged');
select throws_ok($$select actae.cancel_run('tap-nothing', 'x')$$, 'AC404', null,
    'unknown run is AC404');
select is(pg_temp.error_of($$select actae.cancel_run('tap-ca2', repeat('r', 4097))$$)
    -> 'detail' ->> 'argument', 'reason', 'a reason over 4096 bytes is AC400');

select * from finish();
rollback;
