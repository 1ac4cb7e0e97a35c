-- create_channel without metadata creates the channel with the empty object as metadata (as
-- a channel created by its first write has), so a later create_channel with '{}' is the same
-- channel and one with other metadata is AC409; a channel already created by a write is
-- returned unchanged by create_channel with no or empty metadata.
begin;
\ir ../helpers.psql
select plan(5);

create temp table created as select * from actae.create_channel('tap-cwm');
select results_eq($$select channel_id, head_cursor, state_version, metadata from created$$,
    $$values ('tap-cwm'::text, 0::bigint, 0::bigint, '{}'::jsonb)$$,
    'an empty channel whose metadata is {}');
select is((select metadata from actae.create_channel('tap-cwm', '{}')), '{}'::jsonb,
    'create_channel with {} then returns it unchanged');
select throws_ok($$select actae.create_channel('tap-cwm', '{"agent": "a1"}')$$, 'AC409', null,
    'metadata given later is AC409: the channel exists with {}');

select actae.record_event('tap-cwm-w', 'e', '{}');
select is((select metadata from actae.create_channel('tap-cwm-w')), '{}'::jsonb,
    'a channel made by its first write: {} too');
select is((select head_cursor from actae.create_channel('tap-cwm-w', '{}')), 1::bigint,
    'and create_channel returns it unchanged, head and all');

select * from finish();
rollback;
