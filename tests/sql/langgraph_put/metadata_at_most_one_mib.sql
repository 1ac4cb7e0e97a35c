-- langgraph_put stores metadata of at most 1 MiB of JSON: one byte more is AC400 naming
-- metadata, and nothing is stored; at the limit it is taken.
begin;
\ir ../helpers.psql
select plan(4);

-- {"note": "xx..."} of k x's is k + 20 bytes of jsonb.
select is(pg_column_size(jsonb_build_object('note', repeat('x', 1048556))), 1048576,
    'the value below is exactly 1 MiB');
select throws_ok($$select actae.langgraph_put('tap-lgm', '', 'cp-1', null,
    '{"channel_values": {}}', jsonb_build_object('note', repeat('x', 1048557)))$$, 'AC400',
    'metadata must be at most 1048576 bytes of JSON', 'one byte more is AC400');
select is((select count(*) from actae.langgraph_threads where thread_id = 'tap-lgm'),
    0::bigint, 'and nothing is stored');
select is((select outcome from actae.langgraph_put('tap-lgm', '', 'cp-1', null,
    '{"channel_values": {}}', jsonb_build_object('note', repeat('x', 1048556))))::text,
    'transitioned', 'metadata of exactly the limit is taken');

select * from finish();
rollback;
