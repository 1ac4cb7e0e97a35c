-- dedup_fields holds at most 64 entries of at most 256 bytes each: 64 entries and a
-- 256-byte name are accepted, 65 entries or a 257-byte name are AC400 naming dedup_fields,
-- even when params has every listed field, and nothing is written.
begin;
\ir ../helpers.psql
select plan(6);

create function pg_temp.fields(p_count int) returns text[] language sql
as $$ select array(select 'f' || i from generate_series(1, p_count) as i) $$;
create function pg_temp.params_of(p_fields text[]) returns jsonb language sql
as $$ select jsonb_object_agg(f, 1) from unnest(p_fields) as f $$;

select lives_ok(
    $$select * from actae.claim_execution('tap-ddl', 'k64', 't',
        pg_temp.params_of(pg_temp.fields(64)), pg_temp.fields(64))$$,
    '64 dedup_fields entries are accepted');
select lives_ok(
    format($$select * from actae.claim_execution('tap-ddl', 'b256', 't',
        jsonb_build_object(%L, 1), array[%L])$$, repeat('f', 256), repeat('f', 256)),
    'a 256-byte field name is accepted');
select pg_temp.ledger_digest() as before \gset
select throws_ok(
    $$select * from actae.claim_execution('tap-ddl', 'k65', 't',
        pg_temp.params_of(pg_temp.fields(65)), pg_temp.fields(65))$$,
    'AC400', 'dedup_fields must have at most 64 entries', '65 entries are AC400');
select throws_ok(
    format($$select * from actae.claim_execution('tap-ddl', 'b257', 't',
        jsonb_build_object(%L, 1), array[%L])$$, repeat('f', 257), repeat('f', 257)),
    'AC400', 'every dedup_fields entry must be at most 256 bytes',
    'a 257-byte field name is AC400');
select is(
    pg_temp.error_of(format($$select * from actae.claim_execution('tap-ddl', 'b257', 't',
        jsonb_build_object(%L, 1), array[%L])$$, repeat('f', 257), repeat('f', 257)))
        -> 'detail' ->> 'argument',
    'dedup_fields', 'DETAIL names dedup_fields');
select is(pg_temp.ledger_digest(), :'before', 'the refused claims wrote nothing');

select * from finish();
rollback;
