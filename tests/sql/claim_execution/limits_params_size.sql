-- params may be at most 1 MiB (1048576 bytes as pg_column_size measures the jsonb):
-- exactly 1 MiB is accepted, one byte more is AC400 naming params.
begin;
\ir ../helpers.psql
select plan(5);

-- {"x": "aaa…"} measures its string length + 17 bytes. The values are built inline
-- (a value read back from a table may arrive compressed).
select is(pg_column_size(jsonb_build_object('x', repeat('a', 1048559))), 1048576,
    'the first params measure exactly 1 MiB');
select is(pg_column_size(jsonb_build_object('x', repeat('a', 1048560))), 1048577,
    'the second params measure 1 MiB + 1 byte');

select is(
    (select outcome from actae.claim_execution('tap-size', 'a', 't',
        jsonb_build_object('x', repeat('a', 1048559)))),
    'claimed', 'params of exactly 1 MiB are accepted'
);
select throws_ok(
    $$select * from actae.claim_execution('tap-size', 'b', 't',
        jsonb_build_object('x', repeat('a', 1048560)))$$,
    'AC400', 'params must be at most 1048576 bytes of JSON', 'params of 1 MiB + 1 byte are AC400'
);
select is(
    pg_temp.error_of($$select * from actae.claim_execution('tap-size', 'b', 't',
        jsonb_build_object('x', repeat('a', 1048560)))$$) -> 'detail',
    '{"argument": "params", "max_bytes": 1048576, "bytes": 1048577}'::jsonb,
    'DETAIL names params, the limit and the size'
);

select * from finish();
rollback;
