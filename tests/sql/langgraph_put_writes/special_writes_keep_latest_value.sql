-- Special writes (negative index: error, interrupt, resume) keep their latest value: a
-- changed value is a new event that replaces it in the index; the same value is a no-op.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(4);

select pg_temp.lg_put('tap-lg-sp', '', 'cp-1');
select is(pg_temp.lg_write('tap-lg-sp', '', 'cp-1', 'task', -1, '__error__', '{"value": "e1"}'),
    1, 'first error recorded');
select is(pg_temp.lg_write('tap-lg-sp', '', 'cp-1', 'task', -1, '__error__', '{"value": "e1"}'),
    0, 'the same error again records nothing');
select is(pg_temp.lg_write('tap-lg-sp', '', 'cp-1', 'task', -1, '__error__', '{"value": "e2"}'),
    1, 'a changed error is recorded');
select is((select pending_writes from actae.langgraph_get_tuple('tap-lg-sp', '')),
    '[["task", "__error__", {"value": "e2"}]]'::jsonb, 'the latest value is the pending write');

select * from finish();
rollback;
