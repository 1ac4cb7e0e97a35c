-- langgraph_channel returns the channel of a thread namespace, creating it (empty) when
-- needed, and the same one as langgraph_put then uses.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(4);

select is(actae.langgraph_channel('tap-lg-ch'), 'langgraph:tap-lg-ch', 'the root channel');
select is((select head_cursor from actae.get_channel('langgraph:tap-lg-ch')), 0::bigint,
    'created empty');
select is((select channel_id from pg_temp.lg_put('tap-lg-ch', '', 'cp-1')),
    'langgraph:tap-lg-ch', 'put uses the same channel');
select throws_ok($$select actae.langgraph_channel('tap-lg-ch', null)$$, 'AC400',
    'checkpoint_ns is required', 'a null namespace');

select * from finish();
rollback;
