-- The owner's completion stores the result: status completed, finished_at set, the row
-- returned with the owner's token, and every later reader sees the result.
begin;
\ir ../helpers.psql
select plan(6);

create temp table claim as
select * from actae.claim_execution('tap-done', 'k', 'charge', '{"amount": 3}');
create temp table done as
select * from actae.complete_execution(
    (select execution_id from claim), (select claim_token from claim), '{"charge": "ch_9"}');

select is(status, 'completed', 'status is completed') from done;
select is(result, '{"charge": "ch_9"}'::jsonb, 'the result is returned') from done;
select is(d.claim_token, c.claim_token, 'the owner''s token is returned to the owner')
from done as d, claim as c;
select isnt(finished_at, null, 'finished_at is set') from done;
select results_eq(
    $$select status::text, result from actae.executions where channel_id = 'tap-done'$$,
    $$values ('completed'::text, '{"charge": "ch_9"}'::jsonb)$$,
    'the result is stored'
);
select is((select result from actae.get_execution(d.execution_id)), d.result,
    'get_execution returns it') from done as d;

select * from finish();
rollback;
