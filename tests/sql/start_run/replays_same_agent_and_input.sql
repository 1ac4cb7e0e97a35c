-- The same channel again with the same agent and a jsonb-equal input replays the stored run
-- (whatever its status now) and writes nothing; queue and max_attempts are not content.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(4);

select actae.start_run('tap-sr2', 'refund', '{"a": 1, "b": [1, 2]}', 'tap-q-sr2');
create temp table before as select pg_temp.run_json('tap-sr2') as j;
create temp table again as
select * from actae.start_run('tap-sr2', 'refund', '{"b": [1, 2],  "a": 1}', 'other', null, 9);
select is(outcome, 'replayed', 'outcome replayed') from again;
select is(queue, 'tap-q-sr2', 'the stored run is returned') from again;
select is(pg_temp.run_json('tap-sr2'), (select j from before), 'nothing was written');
select pg_temp.started_claim('tap-sr2x', 'tap-q-sr2x');
select actae.complete_run('tap-sr2x', pg_temp.token_of('tap-sr2x'), '"done"');
select is((select status from actae.start_run('tap-sr2x', 'agent', '{"n": 1}')), 'completed',
    'a finished run replays as it is');

select * from finish();
rollback;
