-- Channel values sent as bytes (p_blobs) are stored in the snapshot as base64 JSON, and
-- langgraph_get_tuple hands them back as bytes; a blob index outside p_blobs is AC400, also
-- when p_blobs is empty, and values without a reference are stored as sent whatever p_blobs.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(7);

select actae.langgraph_put('tap-lg-blob', '', 'cp-1', null,
    '{"id": "cp-1", "channel_values": {"a": {"type": "msgpack", "blob": 1},
      "b": {"value": 2}, "c": {"type": "bytes", "blob": 2}}}', '{}',
    array['\x0102ff'::bytea, '\x'::bytea]);
select is((select state -> 'channel_values' from actae.get_state('langgraph:tap-lg-blob')),
    '{"a": {"type": "msgpack", "data": "AQL/"}, "b": {"value": 2},
      "c": {"type": "bytes", "data": ""}}'::jsonb, 'the snapshot holds base64');
select is((select checkpoint -> 'channel_values' from actae.langgraph_get_tuple('tap-lg-blob', '')),
    '{"a": {"type": "msgpack", "blob": 1}, "b": {"value": 2},
      "c": {"type": "bytes", "blob": 2}}'::jsonb, 'the read refers to blobs again');
select is((select blobs from actae.langgraph_get_tuple('tap-lg-blob', '')),
    array['\x0102ff'::bytea, '\x'::bytea], 'and returns their bytes');
select is((select outcome from actae.langgraph_put('tap-lg-blob', '', 'cp-1', null,
    '{"id": "cp-1", "channel_values": {"a": {"type": "msgpack", "blob": 1},
      "b": {"value": 2}, "c": {"type": "bytes", "blob": 2}}}', '{}',
    array['\x0102ff'::bytea, '\x'::bytea])), 'replayed', 'the same blobs again replay');
select throws_ok($$select actae.langgraph_put('tap-lg-blob', '', 'cp-2', null,
    '{"channel_values": {"a": {"type": "msgpack", "blob": 3}}}', '{}', array['\x00'::bytea])$$,
    'AC400', 'every channel value {"blob": i} must name an element of blobs',
    'a blob index outside p_blobs');
select throws_ok($$select actae.langgraph_put('tap-lg-blob', '', 'cp-2', null,
    '{"channel_values": {"a": {"type": "msgpack", "blob": 1}}}', '{}', '{}'::bytea[])$$,
    'AC400', 'every channel value {"blob": i} must name an element of blobs',
    'a blob reference with no blobs sent');
select actae.langgraph_put('tap-lg-blob', '', 'cp-3', 'cp-1',
    '{"channel_values": {"b": {"value": [1, {"x": null}]}, "c": {"type": "t", "data": "AQL/"}},
      "channel_versions": {"b": 2}}', '{}', '{}'::bytea[]);
select actae.langgraph_put('tap-lg-blob', '', 'cp-4', 'cp-3',
    '{"channel_values": {}}', '{}', array['\x00'::bytea]);
select is((select array_agg(s.state order by s.version) from actae.snapshots as s
    where s.channel_id = 'langgraph:tap-lg-blob' and s.version > 1),
    array['{"channel_values": {"b": {"value": [1, {"x": null}]},
      "c": {"type": "t", "data": "AQL/"}}, "channel_versions": {"b": 2}}',
      '{"channel_values": {}}']::jsonb [],
    'checkpoints without references are stored as sent, with or without blobs');

select * from finish();
rollback;
