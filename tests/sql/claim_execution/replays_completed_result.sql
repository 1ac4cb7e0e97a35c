-- A completed execution claimed again with the same fingerprint replays: outcome replayed,
-- the stored result, no token, no new row and no change to the stored row.
begin;
\ir ../helpers.psql
select plan(9);

create temp table first as
select * from actae.claim_execution('tap-replay', 'k', 'search', '{"q": "postgres"}');
select lives_ok(
    $$select actae.complete_execution(execution_id, claim_token, '{"hits": 3}') from first$$,
    'the owner completes the execution'
);
create temp table stored_before as select pg_temp.stored(execution_id) as row from first;

create temp table replay as
select * from actae.claim_execution('tap-replay', 'k', 'search', '{"q": "postgres"}');

select is(outcome, 'replayed', 'outcome is replayed') from replay;
select is(status, 'completed', 'status is completed') from replay;
select is(result, '{"hits": 3}'::jsonb, 'the stored result is returned') from replay;
select is(claim_token, null, 'a replay carries no claim token') from replay;
select is(r.execution_id, f.execution_id, 'the same execution is returned')
from replay as r, first as f;
select is(r.fence, f.fence, 'the fence does not change on replay') from replay as r, first as f;
select is((select count(*) from actae.executions where channel_id = 'tap-replay'), 1::bigint,
    'no new row is written');
select is(pg_temp.stored(f.execution_id), b.row, 'the stored row is untouched by the replay')
from first as f, stored_before as b;

select * from finish();
rollback;
