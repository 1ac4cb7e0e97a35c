-- tool_policies is a JSON object whose every key is a tool name (1..256 bytes, as tool_name)
-- and whose every value is exactly one of the strings replay, live or block. An array value
-- (["block"], [], ["block", "live"]) is AC400 naming tool_policies, not a policy that is
-- silently never applied; so is a key no claim could use (empty, or over 256 bytes). A
-- refused fork writes nothing: no fork exists to claim in.
begin;
\ir ../helpers.psql
select plan(16);

select actae.record_event('tap-tpx', 't', '{}');
create temp table digest_before as select pg_temp.ledger_digest() as d;

create function pg_temp.refused(p_policies text) returns jsonb
language sql
as $$
    select pg_temp.error_of(format(
        $f$select actae.fork_channel('tap-tpx', 1, 'tap-tpx-fork', null, %L)$f$, p_policies))
$$;

select is(pg_temp.refused('{"charge": ["block"]}') ->> 'sqlstate', 'AC400',
    'a one-element array value is AC400');
select is(pg_temp.refused('{"charge": ["block"]}') -> 'detail' ->> 'argument', 'tool_policies',
    'naming tool_policies');
select is(pg_temp.refused('{"charge": []}') -> 'detail' ->> 'argument', 'tool_policies',
    'an empty array value is AC400');
select is(pg_temp.refused('{"charge": ["block", "live"]}') -> 'detail' ->> 'argument',
    'tool_policies', 'an array of two policies is AC400');
select is(pg_temp.refused('{"ok": "live", "charge": ["live"]}') -> 'detail' ->> 'argument',
    'tool_policies', 'one array value among valid ones is AC400');
select is(pg_temp.refused('{"charge": {"policy": "block"}}') -> 'detail' ->> 'argument',
    'tool_policies', 'an object value is AC400');
select is(pg_temp.refused('{"charge": null}') -> 'detail' ->> 'argument',
    'tool_policies', 'a null value is AC400');
select is(pg_temp.refused('{"": "live"}') -> 'detail' ->> 'argument', 'tool_policies',
    'an empty tool name is AC400');
select is(pg_temp.refused(jsonb_build_object(repeat('t', 257), 'live')::text)
    -> 'detail' ->> 'argument', 'tool_policies', 'a tool name of 257 bytes is AC400');
select is(pg_temp.refused(jsonb_build_object(repeat('é', 129), 'live')::text)
    -> 'detail' ->> 'argument', 'tool_policies',
    'a tool name of 129 two-byte characters (258 bytes) is AC400');
select is(pg_temp.refused('{"charge": "Block"}') -> 'detail' ->> 'argument', 'tool_policies',
    'policies are case-sensitive');
select is(pg_temp.ledger_digest(), d, 'none of these forks wrote anything') from digest_before;
select is((select count(*) from actae.channels where channel_id = 'tap-tpx-fork'), 0::bigint,
    'no fork channel was created');

select is(pg_temp.refused(jsonb_build_object(repeat('t', 256), 'live', 'a', 'block',
    repeat('é', 128), 'replay')::text), null,
    'tool names of 1 and 256 bytes with each of replay, live and block are accepted');
select is((select tool_policies from actae.get_channel('tap-tpx-fork')),
    jsonb_build_object(repeat('t', 256), 'live', 'a', 'block', repeat('é', 128), 'replay'),
    'and stored as given');
select throws_ok($$select actae.claim_execution('tap-tpx-fork', 'k1', 'a', '{}')$$, 'AC403',
    null, 'block is enforced in that fork');

select * from finish();
rollback;
