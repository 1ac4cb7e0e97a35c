-- A retried write (same checkpoint, task and index) records nothing, even with another
-- value: the first value stays, as in LangGraph's own savers.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(3);

select pg_temp.lg_put('tap-lg-wr', '', 'cp-1');
select pg_temp.lg_write('tap-lg-wr', '', 'cp-1', 'task', 0, 'ch', '{"value": "first"}');
create temp table digest_before as select pg_temp.lg_digest() as d;
select is(pg_temp.lg_write('tap-lg-wr', '', 'cp-1', 'task', 0, 'ch', '{"value": "first"}'), 0,
    'the same write again records nothing');
select is(pg_temp.lg_write('tap-lg-wr', '', 'cp-1', 'task', 0, 'ch', '{"value": "other"}'), 0,
    'another value under the same index records nothing');
select is(pg_temp.lg_digest(), d, 'nothing was written') from digest_before;

select * from finish();
rollback;
