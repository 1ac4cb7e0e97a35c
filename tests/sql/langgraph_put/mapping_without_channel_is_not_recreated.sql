-- A thread namespace whose mapping names a channel that is gone is AC404 (naming the
-- namespace's would-be channel) for put, put_writes and langgraph_channel: the mapped
-- channel is never created again silently (only a namespace without a mapping gets a new
-- channel), and nothing is written.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(4);

insert into actae.langgraph_threads (channel_id, thread_id, checkpoint_ns)
values ('langgraph:tap-lg-gone-x', 'tap-lg-gone', '');
select pg_temp.lg_digest() as before \gset

select throws_ok($$select pg_temp.lg_put('tap-lg-gone', '', 'cp-1')$$, 'AC404',
    'channel langgraph:tap-lg-gone does not exist', 'put');
select throws_ok(
    $$select pg_temp.lg_write('tap-lg-gone', '', 'cp-1', 't', 0, 'c', '{"value": 1}')$$,
    'AC404', 'channel langgraph:tap-lg-gone does not exist', 'put_writes');
select throws_ok($$select actae.langgraph_channel('tap-lg-gone')$$, 'AC404',
    'channel langgraph:tap-lg-gone does not exist', 'langgraph_channel');
select is(pg_temp.lg_digest(), :'before', 'no channel was created, nothing written');

select * from finish();
rollback;
