-- The delete strategy deletes the threads as langgraph_delete_thread does.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(2);

select pg_temp.lg_put('tap-lg-prd', '', 'cp-1');
select pg_temp.lg_put('tap-lg-prd', 'child:1', 'cp-2');
select is(actae.langgraph_prune(array['tap-lg-prd', 'tap-lg-nobody'], 'delete'), 2,
    'two namespaces deleted');
select is((select count(*) from actae.channels where channel_id like 'langgraph:tap-lg-prd%'),
    0::bigint, 'their channels are gone');

select * from finish();
rollback;
