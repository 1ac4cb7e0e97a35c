-- Repeating complete_execution with the same token and a jsonb-equal result (the driver
-- retrying after a dropped connection) is a no-op success: same answer, row unchanged.
begin;
\ir ../helpers.psql
select plan(4);

create temp table claim as select * from actae.claim_execution('tap-again', 'k', 't', '{}');
create temp table first as
select * from actae.complete_execution(
    (select execution_id from claim), (select claim_token from claim), '{"a": 1, "b": [1, 2]}');
create temp table stored_before as select pg_temp.stored(execution_id) as row from claim;

create temp table second as
select * from actae.complete_execution(
    (select execution_id from claim), (select claim_token from claim), '{ "b":[1,2], "a":1 }');

select is(status, 'completed', 'the repeat succeeds') from second;
select is(s.result, f.result, 'with the same result') from second as s, first as f;
select is(s.finished_at, f.finished_at, 'and the original finished_at') from second as s, first as f;
select is(pg_temp.stored(c.execution_id), b.row, 'the stored row is unchanged')
from claim as c, stored_before as b;

select * from finish();
rollback;
