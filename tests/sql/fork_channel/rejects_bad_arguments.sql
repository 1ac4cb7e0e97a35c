-- Unknown source or a cursor beyond its head is AC404; a null or negative cursor, bad
-- tool_policies or over-long ids are AC400. A failed fork writes nothing.
begin;
\ir ../helpers.psql
select plan(11);

select pg_temp.record_steps('tap-fbad', 2);
create temp table digest_before as select pg_temp.ledger_digest() as d;

select throws_ok($$select actae.fork_channel('tap-nowhere', 0)$$, 'AC404', null,
    'an unknown source is AC404');
select throws_ok($$select actae.fork_channel('tap-fbad', 3)$$, 'AC404', null,
    'a cursor beyond the head is AC404');
select is(pg_temp.error_of($$select actae.fork_channel('tap-fbad', 3)$$) -> 'detail' -> 'head_cursor',
    '2'::jsonb, 'DETAIL carries the head cursor');
select throws_ok($$select actae.fork_channel('tap-fbad', null)$$, 'AC400',
    'at_cursor is required', 'a null cursor is AC400');
select throws_ok($$select actae.fork_channel('tap-fbad', -1)$$, 'AC400', null,
    'a negative cursor is AC400');
select throws_ok($$select actae.fork_channel('tap-fbad', 1, null, null, '["live"]')$$, 'AC400',
    'tool_policies must be a JSON object mapping tool names to replay, live or block',
    'policies that are not an object are AC400');
select throws_ok($$select actae.fork_channel('tap-fbad', 1, null, null, '{"t": "rerun"}')$$,
    'AC400', null, 'an unknown policy is AC400');
select throws_ok($$select actae.fork_channel('tap-fbad', 1, null, null, '{"t": true}')$$,
    'AC400', null, 'a policy that is not a string is AC400');
select throws_ok(format($$select actae.fork_channel('tap-fbad', 1, %L)$$, repeat('n', 257)),
    'AC400', null, 'a new_channel_id of 257 bytes is AC400');
select throws_ok(format($$select actae.fork_channel('tap-fbad', 1, null, %L)$$, repeat('o', 257)),
    'AC400', null, 'an operation_id of 257 bytes is AC400');
select is(pg_temp.ledger_digest(), d, 'none of these calls wrote anything') from digest_before;

select * from finish();
rollback;
