-- key_name is 1..1024 BYTES: 1024 is accepted, 1025 is AC400; multibyte strings count
-- their UTF-8 bytes.
begin;
\ir ../helpers.psql
select plan(7);

select lives_ok(
    format($$select * from actae.claim_execution('tap-key', %L, 't', '{}')$$, repeat('k', 1024)),
    'key_name of 1024 bytes is accepted');
select throws_ok(
    format($$select * from actae.claim_execution('tap-key', %L, 't', '{}')$$, repeat('k', 1025)),
    'AC400', 'key_name must be 1 to 1024 bytes of text', 'key_name of 1025 bytes is AC400');
select lives_ok(
    format($$select * from actae.claim_execution('tap-key', %L, 't', '{}')$$, repeat('ü', 512)),
    'key_name of 512 two-byte characters (1024 bytes) is accepted');
select throws_ok(
    format($$select * from actae.claim_execution('tap-key', %L, 't', '{}')$$, repeat('ü', 513)),
    'AC400', null, 'key_name of 513 two-byte characters (1026 bytes) is AC400');
select throws_ok($$select * from actae.claim_execution('tap-key', '', 't', '{}')$$,
    'AC400', null, 'an empty key_name is AC400');
select throws_ok($$select * from actae.claim_execution('tap-key', null, 't', '{}')$$,
    'AC400', null, 'a null key_name is AC400');
select is(
    pg_temp.error_of(format($$select * from actae.claim_execution('tap-key', %L, 't', '{}')$$,
        repeat('k', 1025))) -> 'detail' ->> 'argument',
    'key_name', 'DETAIL names key_name');

select * from finish();
rollback;
