-- Storing the same checkpoint again (a retried put) replays it: same cursor and version,
-- outcome replayed, nothing new recorded.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(3);

select pg_temp.lg_put('tap-lg-rep', '', 'cp-1', null, '{"step": 0}');
create temp table digest_before as select pg_temp.lg_digest() as d;
create temp table again as select * from pg_temp.lg_put('tap-lg-rep', '', 'cp-1', null, '{"step": 0}');
select is((select outcome from again), 'replayed', 'outcome replayed');
select is((select (cursor, version)::text from again), '(1,1)', 'the original cursor and version');
select is(pg_temp.lg_digest(), d, 'nothing was written') from digest_before;

select * from finish();
rollback;
