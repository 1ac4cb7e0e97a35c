-- Operation ids of writes cannot collide: checkpoint 'a:b' with task 'c' and checkpoint
-- 'a' with task 'b:c' (the same 'write:a:b:c:0' in the plain form) are two writes, each
-- recorded and each its checkpoint's; a retry of either still records nothing.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(5);

select pg_temp.lg_put('tap-lg-colon', '', 'a');
select pg_temp.lg_put('tap-lg-colon', '', 'a:b');
select is(pg_temp.lg_write('tap-lg-colon', '', 'a:b', 'c', 0, 'ch', '{"value": "first"}'), 1,
    'the write of checkpoint a:b, task c is recorded');
select is(pg_temp.lg_write('tap-lg-colon', '', 'a', 'b:c', 0, 'ch', '{"value": "second"}'), 1,
    'so is the write of checkpoint a, task b:c');
select is((select pending_writes from actae.langgraph_get_tuple('tap-lg-colon', '', 'a')),
    '[["b:c", "ch", {"value": "second"}]]'::jsonb, 'checkpoint a has its own write');
select is((select pending_writes from actae.langgraph_get_tuple('tap-lg-colon', '', 'a:b')),
    '[["c", "ch", {"value": "first"}]]'::jsonb, 'and so has checkpoint a:b');
select is(pg_temp.lg_write('tap-lg-colon', '', 'a:b', 'c', 0, 'ch', '{"value": "first"}')
    + pg_temp.lg_write('tap-lg-colon', '', 'a', 'b:c', 0, 'ch', '{"value": "second"}'), 0,
    'retries record nothing');

select * from finish();
rollback;
