-- The same key with different business fields is a different operation: AC409
-- (idempotency_conflict) whatever the execution's status, DETAIL showing both
-- fingerprints, and the stored execution is untouched.
begin;
\ir ../helpers.psql
select plan(8);

create temp table first as
select * from actae.claim_execution('tap-fp', 'k', 'charge', '{"amount": 100, "to": "a"}');
create temp table stored_before as select pg_temp.stored(execution_id) as row from first;
create temp table digest_before as select pg_temp.ledger_digest() as d;

select throws_ok(
    $$select * from actae.claim_execution('tap-fp', 'k', 'charge', '{"amount": 200, "to": "a"}')$$,
    'AC409', null, 'a changed params value under a live lease is AC409'
);
select is(pg_temp.stored(f.execution_id), b.row, 'the stored execution is untouched')
from first as f, stored_before as b;
select is(pg_temp.ledger_digest(), d, 'and nothing else was written') from digest_before;

create temp table err as select pg_temp.error_of(
    $$select * from actae.claim_execution('tap-fp', 'k', 'charge', '{"amount": 200, "to": "a"}')$$
) as e;
select is(e -> 'detail' ->> 'stored_fingerprint', f.fingerprint,
    'DETAIL carries the stored fingerprint') from err, first as f;
select is(e -> 'detail' ->> 'given_fingerprint',
    pg_temp.sha256_hex('{"to": "a", "amount": 200}'),
    'DETAIL carries the given fingerprint') from err;

select actae.complete_execution(execution_id, claim_token, '"ok"') from first;
select throws_ok(
    $$select * from actae.claim_execution('tap-fp', 'k', 'charge', '{"amount": 200, "to": "a"}')$$,
    'AC409', null, 'a changed fingerprint is AC409 after completion too (no replay)'
);
select throws_ok(
    $$select * from actae.claim_execution('tap-fp', 'k', 'charge', '{"amount": 100}')$$,
    'AC409', null, 'a removed field changes the fingerprint: AC409'
);
select throws_ok(
    $$select * from actae.claim_execution('tap-fp', 'k', 'charge',
        '{"amount": 100, "to": "a", "extra": true}')$$,
    'AC409', null, 'an added field changes the fingerprint when dedup_fields is null: AC409'
);

select * from finish();
rollback;
