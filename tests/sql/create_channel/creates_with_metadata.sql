-- create_channel creates an empty channel (head 0, version 0, state null) with optional
-- metadata; repeating it with no or the same metadata returns it unchanged; different
-- metadata is AC409; metadata that is not an object is AC400.
begin;
\ir ../helpers.psql
select plan(6);

create temp table created as select * from actae.create_channel('tap-cc', '{"agent": "a1"}');
select results_eq($$select channel_id, head_cursor, state_version, metadata from created$$,
    $$values ('tap-cc'::text, 0::bigint, 0::bigint, '{"agent": "a1"}'::jsonb)$$,
    'an empty channel with its metadata');
select is((select metadata from actae.create_channel('tap-cc')), '{"agent": "a1"}'::jsonb,
    'repeating without metadata returns it unchanged');
select is((select metadata from actae.create_channel('tap-cc', '{"agent": "a1"}')),
    '{"agent": "a1"}'::jsonb, 'repeating with the same metadata returns it unchanged');
select throws_ok($$select actae.create_channel('tap-cc', '{"agent": "a2"}')$$, 'AC409', null,
    'different metadata is AC409');
select throws_ok($$select actae.create_channel('tap-cc2', '[1]')$$, 'AC400', null,
    'metadata that is not an object is AC400');
select is((select cursor from actae.record_event('tap-cc', 'e', '{}', null, 0)), 1::bigint,
    'the created channel takes its first event at cursor 1');

select * from finish();
rollback;
