-- Deleting a thread that does not exist forgets nothing and is not an error; a bad
-- thread_id is AC400.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(3);

create temp table digest_before as select pg_temp.lg_digest() as d;
select is(actae.langgraph_delete_thread('tap-lg-nobody'), 0, 'nothing forgotten');
select is(pg_temp.lg_digest(), d, 'nothing was written') from digest_before;
select throws_ok($$select actae.langgraph_delete_thread('')$$, 'AC400', null, 'empty thread_id');

select * from finish();
rollback;
