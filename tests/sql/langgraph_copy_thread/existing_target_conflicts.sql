-- Copying onto a thread that exists is AC409 and writes nothing; copying a thread that
-- does not exist copies nothing.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(3);

select pg_temp.lg_put('tap-lg-a', '', 'cp-1');
select pg_temp.lg_put('tap-lg-b', '', 'cp-2');
create temp table digest_before as select pg_temp.lg_digest() as d;
select throws_ok($$select actae.langgraph_copy_thread('tap-lg-a', 'tap-lg-b')$$, 'AC409',
    'thread tap-lg-b already exists', 'an existing target is AC409');
select is(pg_temp.lg_digest(), d, 'nothing was written') from digest_before;
select is(actae.langgraph_copy_thread('tap-lg-nobody', 'tap-lg-c'), 0,
    'an unknown source copies nothing');

select * from finish();
rollback;
