-- The tool_policies domain (channels.tool_policies) holds what fork_channel accepts and
-- nothing else, whoever writes the row: an object of tool names (1.._limit('tool_name')
-- bytes) to exactly one of the strings replay, live, block. Arrays are not unwrapped.
begin;
\ir ../helpers.psql
select plan(8);

select actae.record_event('tap-tpd', 't', '{}');

select throws_ok(
    $$update actae.channels set tool_policies = '{"charge": ["block"]}'
      where channel_id = 'tap-tpd'$$,
    '23514', null, 'an array holding a policy is rejected by the table');
select throws_ok(
    $$update actae.channels set tool_policies = '{"charge": []}' where channel_id = 'tap-tpd'$$,
    '23514', null, 'an empty array is rejected');
select throws_ok(
    $$update actae.channels set tool_policies = '{"charge": ["block", "live"]}'
      where channel_id = 'tap-tpd'$$,
    '23514', null, 'an array of policies is rejected');
select throws_ok(
    $$update actae.channels set tool_policies = '{"": "live"}' where channel_id = 'tap-tpd'$$,
    '23514', null, 'an empty tool name is rejected');
select throws_ok(
    format($$update actae.channels set tool_policies = %L where channel_id = 'tap-tpd'$$,
        jsonb_build_object(repeat('t', actae._limit('tool_name')::integer + 1), 'live')),
    '23514', null, 'a tool name one byte over _limit(''tool_name'') is rejected');
select lives_ok(
    format($$update actae.channels set tool_policies = %L where channel_id = 'tap-tpd'$$,
        jsonb_build_object(repeat('t', actae._limit('tool_name')::integer), 'live')),
    'a tool name of exactly _limit(''tool_name'') bytes is accepted');
select is(actae._tool_policies_valid('{}'), true, 'an empty object is valid');
select is(actae._tool_policies_valid(null), null, 'null is for the caller to decide (null)');

select * from finish();
rollback;
