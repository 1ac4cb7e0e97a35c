-- task_path is at most 1024 bytes: 1024 is accepted, 1025 is AC400 and writes nothing.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(4);

select pg_temp.lg_put('tap-lg-tp', '', 'cp-1');
select lives_ok($$select pg_temp.lg_write('tap-lg-tp', '', 'cp-1', 'task', 0, 'c',
    '{"value": 1}', repeat('p', 1024))$$, 'a task_path of 1024 bytes is accepted');
select is((select pending_writes from actae.langgraph_get_tuple('tap-lg-tp', '')),
    '[["task", "c", {"value": 1}]]'::jsonb, 'and its write stored');
create temp table digest_before as select pg_temp.lg_digest() as d;
select throws_ok($$select pg_temp.lg_write('tap-lg-tp', '', 'cp-1', 'task', 1, 'c',
    '{"value": 1}', repeat('p', 1025))$$, 'AC400', null, 'one of 1025 bytes is AC400');
select is(pg_temp.lg_digest(), d, 'nothing was written') from digest_before;

select * from finish();
rollback;
