-- channel_id and tool_name are 1..256 BYTES (not characters): 256 bytes is accepted,
-- 257 is AC400 naming the argument; a multibyte string counts its UTF-8 bytes.
begin;
\ir ../helpers.psql
select plan(14);

select lives_ok(
    format($$select * from actae.claim_execution(%L, 'k', 't', '{}')$$, repeat('c', 256)),
    'channel_id of 256 bytes is accepted');
select throws_ok(
    format($$select * from actae.claim_execution(%L, 'k', 't', '{}')$$, repeat('c', 257)),
    'AC400', 'channel_id must be 1 to 256 bytes of text', 'channel_id of 257 bytes is AC400');
select lives_ok(
    format($$select * from actae.claim_execution(%L, 'k', 't', '{}')$$, repeat('é', 128)),
    'channel_id of 128 two-byte characters (256 bytes) is accepted');
select throws_ok(
    format($$select * from actae.claim_execution(%L, 'k', 't', '{}')$$, repeat('é', 129)),
    'AC400', null, 'channel_id of 129 two-byte characters (258 bytes) is AC400');
select is(
    pg_temp.error_of(format($$select * from actae.claim_execution(%L, 'k', 't', '{}')$$,
        repeat('é', 129))) -> 'detail',
    '{"argument": "channel_id", "max_bytes": 256, "bytes": 258}'::jsonb,
    'DETAIL names channel_id, the limit and the size in bytes');
select throws_ok($$select * from actae.claim_execution('', 'k', 't', '{}')$$,
    'AC400', null, 'an empty channel_id is AC400');
select throws_ok($$select * from actae.claim_execution(null, 'k', 't', '{}')$$,
    'AC400', null, 'a null channel_id is AC400');

select lives_ok(
    format($$select * from actae.claim_execution('tap-lim', 'k1', %L, '{}')$$, repeat('t', 256)),
    'tool_name of 256 bytes is accepted');
select throws_ok(
    format($$select * from actae.claim_execution('tap-lim', 'k2', %L, '{}')$$, repeat('t', 257)),
    'AC400', 'tool_name must be 1 to 256 bytes of text', 'tool_name of 257 bytes is AC400');
select lives_ok(
    format($$select * from actae.claim_execution('tap-lim', 'k3', %L, '{}')$$, repeat('€', 85)
        || 'x'),
    'tool_name of 85 three-byte characters and one byte (256 bytes) is accepted');
select throws_ok(
    format($$select * from actae.claim_execution('tap-lim', 'k4', %L, '{}')$$, repeat('€', 86)),
    'AC400', null, 'tool_name of 86 three-byte characters (258 bytes) is AC400');
select throws_ok($$select * from actae.claim_execution('tap-lim', 'k5', '', '{}')$$,
    'AC400', null, 'an empty tool_name is AC400');
select throws_ok($$select * from actae.claim_execution('tap-lim', 'k6', null, '{}')$$,
    'AC400', null, 'a null tool_name is AC400');
select is((select count(*) from actae.executions where channel_id = 'tap-lim'), 2::bigint,
    'only the two accepted tool names were stored');

select * from finish();
rollback;
