-- The fingerprint is sha256 over the UTF-8 bytes of the canonical jsonb text, also for
-- params holding characters outside ASCII (with and without dedup_fields), so every
-- language computes the same value from the same JSON.
begin;
\ir ../helpers.psql
select plan(2);

select is(
    (select fingerprint from actae.claim_execution('tap-fpu', 'k1', 't',
        '{"name": "Zoë", "note": "ça"}')),
    pg_temp.sha256_hex('{"name": "Zoë", "note": "ça"}'),
    'all of params, non-ASCII text hashed as UTF-8'
);
select is(
    (select fingerprint from actae.claim_execution('tap-fpu', 'k2', 't',
        '{"name": "Zoë", "note": "ça"}', array['name'])),
    pg_temp.sha256_hex('{"name": "Zoë"}'),
    'one dedup field, non-ASCII text hashed as UTF-8'
);

select * from finish();
rollback;
