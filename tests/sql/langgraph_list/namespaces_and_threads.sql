-- A namespace selects that namespace only; none selects every namespace of the thread; no
-- thread selects every thread.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(3);

select pg_temp.lg_put('tap-lg-lns', '', 'cp-1', null, '{"tap": "lns"}');
select pg_temp.lg_put('tap-lg-lns', 'child:1', 'cp-2', null, '{"tap": "lns"}');
select pg_temp.lg_put('tap-lg-lns-2', '', 'cp-3', null, '{"tap": "lns"}');
select is((select array_agg(checkpoint_id) from actae.langgraph_list('tap-lg-lns', '')),
    array['cp-1'], 'the root namespace only');
select is((select array_agg(checkpoint_ns || '/' || checkpoint_id)
           from actae.langgraph_list('tap-lg-lns')),
    array['child:1/cp-2', '/cp-1'], 'every namespace of the thread');
select is((select array_agg(thread_id || '/' || checkpoint_id)
           from actae.langgraph_list(null, null, '{"tap": "lns"}')),
    array['tap-lg-lns-2/cp-3', 'tap-lg-lns/cp-2', 'tap-lg-lns/cp-1'], 'every thread');

select * from finish();
rollback;
