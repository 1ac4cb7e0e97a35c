-- A channel that a copied thread inherits from is not deleted: it is closed (purge takes
-- it once nothing inherits from it) and the copy still reads every checkpoint.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(4);

select pg_temp.lg_put('tap-lg-src', '', 'cp-1');
select actae.langgraph_copy_thread('tap-lg-src', 'tap-lg-copy');
select is(actae.langgraph_delete_thread('tap-lg-src'), 1, 'the source is forgotten');
select isnt((select closed_at from actae.channels where channel_id = 'langgraph:tap-lg-src'),
    null, 'its channel is closed, not deleted');
select is((select count(*) from actae.langgraph_get_tuple('tap-lg-src', '')), 0::bigint,
    'the source has no checkpoint');
select is((select checkpoint from actae.langgraph_get_tuple('tap-lg-copy', '')),
    '{"id": "cp-1", "channel_values": {}}'::jsonb, 'the copy still reads it');

select * from finish();
rollback;
