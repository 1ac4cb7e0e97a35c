-- The previous owner cannot fail an execution another worker reclaimed: AC423, and the
-- new owner's lease is untouched. An unknown execution is AC404.
begin;
\ir ../helpers.psql
select plan(4);

create temp table old as select * from actae.claim_execution('tap-fstale', 'k', 't', '{}');
select pg_temp.expire(execution_id) from old;
create temp table new as select * from actae.claim_execution('tap-fstale', 'k', 't', '{}');
create temp table stored_before as select pg_temp.stored(execution_id) as row from new;

select throws_ok($$select actae.fail_execution(execution_id, 'late', claim_token) from old$$,
    'AC423', null, 'the previous owner''s failure is AC423');
select throws_ok(
    $$select actae.fail_execution(execution_id, 'late', gen_random_uuid()) from old$$,
    'AC423', null, 'a random token is AC423');
select is(pg_temp.stored(n.execution_id), b.row, 'the new owner''s row is untouched')
from new as n, stored_before as b;
select throws_ok(
    $$select actae.fail_execution(gen_random_uuid(), 'x', gen_random_uuid())$$,
    'AC404', null, 'an unknown execution is AC404');

select * from finish();
rollback;
