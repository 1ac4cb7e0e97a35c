-- A tool_policies key that no claim could use (empty, or longer than _limit('tool_name') =
-- 256 bytes) is AC400 with its own message and DETAIL: the byte limit, so the caller learns
-- which rule the key broke (the generic "must map tool names to replay, live or block" is
-- for a value of another shape).
begin;
\ir ../helpers.psql
select plan(5);

select actae.record_event('tap-tnl', 't', '{}');

select is(
    pg_temp.error_of($$select actae.fork_channel('tap-tnl', 1, null, null,
        jsonb_build_object(repeat('t', 257), 'live'))$$),
    '{"sqlstate": "AC400",
      "message": "every tool name in tool_policies must be 1 to 256 bytes",
      "detail": {"argument": "tool_policies", "max_bytes": 256}}'::jsonb,
    'a 257-byte tool name: AC400 naming the byte limit');
select is(
    pg_temp.error_of($$select actae.fork_channel('tap-tnl', 1, null, null, '{"": "block"}')$$)
        -> 'detail',
    '{"argument": "tool_policies", "max_bytes": 256}'::jsonb,
    'an empty tool name: the same DETAIL');
select is(
    pg_temp.error_of($$select actae.fork_channel('tap-tnl', 1, null, null,
        jsonb_build_object(repeat('t', 257), 'live', 'charge', '["block"]'::jsonb))$$) ->> 'message',
    'every tool name in tool_policies must be 1 to 256 bytes',
    'a bad key is reported before a bad value elsewhere in the object');
select is(
    pg_temp.error_of($$select actae.fork_channel('tap-tnl', 1, null, null,
        '{"charge": ["block"]}')$$),
    '{"sqlstate": "AC400",
      "message": "tool_policies must be a JSON object mapping tool names to replay, live or block",
      "detail": {"argument": "tool_policies", "type": "object"}}'::jsonb,
    'a value of another shape gets the generic message, with the JSON type');
select is(
    pg_temp.error_of($$select actae.fork_channel('tap-tnl', 1, null, null, '["live"]')$$)
        -> 'detail',
    '{"argument": "tool_policies", "type": "array"}'::jsonb,
    'a non-object names its type');

select * from finish();
rollback;
