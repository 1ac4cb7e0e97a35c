-- Null run_ids is AC400; an empty list or unknown run ids forget nothing.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(3);

select pg_temp.lg_put('tap-lg-runn', '', 'cp-1', null, '{"run_id": "tap-run-x"}');
select throws_ok($$select actae.langgraph_delete_for_runs(null)$$, 'AC400',
    'run_ids is required', 'null run_ids');
select is(actae.langgraph_delete_for_runs('{}'), 0, 'an empty list forgets nothing');
select is(actae.langgraph_delete_for_runs(array['tap-run-unknown']), 0,
    'unknown run ids forget nothing');

select * from finish();
rollback;
