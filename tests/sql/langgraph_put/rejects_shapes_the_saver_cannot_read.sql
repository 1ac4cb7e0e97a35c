-- A checkpoint is stored only in a shape the saver reads back: "channel_values" an object of
-- {"value": v}, {"type": t, "data": base64} or {"type": t, "blob": i}; "encoded" (when
-- present) an object of the first two; its "id" (when present) equal to checkpoint_id.
-- Anything else is AC400 naming checkpoint, and writes nothing.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(12);

create temp table seen (what text, value jsonb);
select pg_temp.lg_digest() as before \gset
insert into seen
select c.what, pg_temp.error_of(format(
    $$select actae.langgraph_put('tap-lg-shape', '', 'cp-1', null, %L, '{}')$$, c.checkpoint))
from (values
    ('no channel_values', '{"id": "cp-1"}'),
    ('channel_values a list', '{"channel_values": []}'),
    ('a bare channel value', '{"channel_values": {"messages": 5}}'),
    ('a value without value', '{"channel_values": {"messages": {"v": 5}}}'),
    ('data without a type', '{"channel_values": {"m": {"data": "AQL/"}}}'),
    ('data that is not base64', '{"channel_values": {"m": {"type": "t", "data": "!!x"}}}'),
    ('data that is a number', '{"channel_values": {"m": {"type": "t", "data": 5}}}'),
    ('a blob with no blobs', '{"channel_values": {"m": {"type": "t", "blob": 1}}}'),
    ('encoded of bare values', '{"channel_values": {}, "encoded": {"x": 1}}'),
    ('another id', '{"id": "other-id", "channel_values": {}}')
) as c (what, checkpoint);

select is((select count(*) from seen where value ->> 'sqlstate' = 'AC400'
    and value -> 'detail' ->> 'argument' = 'checkpoint'
    and what <> 'a blob with no blobs'), 9::bigint,
    'every shape the saver cannot read is AC400 naming checkpoint');
select is((select value -> 'detail' ->> 'argument' from seen
    where what = 'a blob with no blobs'), 'blobs', 'a blob reference without blobs names blobs');
select is((select value ->> 'message' from seen where what = 'another id'),
    'checkpoint "id", when present, must equal checkpoint_id', 'another id says so');
select is(pg_temp.lg_digest(), :'before', 'nothing was written');

select is((select outcome from actae.langgraph_put('tap-lg-shape', '', 'cp-1', null,
    '{"id": "cp-1", "v": 4, "channel_values": {"a": {"value": [1, {"b": null}]},
      "b": {"type": "msgpack", "data": "AQL/"}, "c": {"type": "t", "blob": 1}},
      "encoded": {"pending_sends": {"type": "msgpack", "data": ""}, "x": {"value": 1}}}',
    '{}', array['\x01'::bytea])), 'transitioned', 'the saver''s shapes are stored');
select is((select outcome from pg_temp.lg_put('tap-lg-shape', '', 'cp-2', 'cp-1', '{}',
    '{"channel_values": {}}')), 'transitioned', 'a checkpoint without an id too');
select is((select checkpoint_id from actae.langgraph_get_tuple('tap-lg-shape', '')), 'cp-2',
    'and read back');
select is((select count(*) from seen where what like 'data%'
    and value ->> 'message' like 'checkpoint must have "channel_values"%'), 3::bigint,
    'bad data names the shape');
select is((select value ->> 'message' from seen where what = 'encoded of bare values'),
    'checkpoint "encoded" must be a JSON object of {"value": any} or'
    || ' {"type": text, "data": base64}', 'bad encoded fields say so');
select is((select value ->> 'message' from seen where what = 'no channel_values'),
    'checkpoint must have "channel_values": a JSON object of {"value": any},'
    || ' {"type": text, "data": base64} or {"type": text, "blob": i}',
    'no channel_values says what they must be');
select throws_ok($$select actae.langgraph_put('tap-lg-shape', '', 'cp-3', null,
    '{"id": 3, "channel_values": {}}', '{}')$$, 'AC400',
    'checkpoint "id", when present, must equal checkpoint_id', 'an id that is not text');
select is((select count(*) from actae.langgraph_list('tap-lg-shape')), 2::bigint,
    'only the two good checkpoints are stored');

select * from finish();
rollback;
