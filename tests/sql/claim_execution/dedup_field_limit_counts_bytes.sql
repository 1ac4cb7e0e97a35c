-- The 256 limit of one dedup_fields entry counts bytes, not characters: a name of 128
-- two-byte characters (256 bytes) is accepted, one of 129 (258 bytes, far fewer than 256
-- characters) is AC400 naming dedup_fields, with the size in bytes of the longest entry
-- (not of a shorter one beside it), and nothing is written.
begin;
\ir ../helpers.psql
select plan(4);

select lives_ok(
    format($$select * from actae.claim_execution('tap-ddb', 'k256', 't', %L, array[%L])$$,
        jsonb_build_object(repeat('é', 128), 1), repeat('é', 128)),
    'a 256-byte name of 128 characters is accepted'
);
create temp table digest_before as select pg_temp.ledger_digest() as d;
create temp table refused as
select pg_temp.error_of(
    format($$select * from actae.claim_execution('tap-ddb', 'k258', 't', %L, array['a', %L])$$,
        jsonb_build_object('a', 1, repeat('é', 129), 2), repeat('é', 129))) as e;
select is((select e ->> 'message' from refused),
    'every dedup_fields entry must be at most 256 bytes',
    'a 258-byte name of 129 characters is refused');
select is((select e -> 'detail' from refused),
    '{"argument": "dedup_fields", "max_bytes": 256, "bytes": 258}'::jsonb,
    'DETAIL names dedup_fields and gives the longest entry''s size in bytes');
select is(pg_temp.ledger_digest(), d, 'the refused claim wrote nothing') from digest_before;

select * from finish();
rollback;
