-- A completed key is replayed only for the same dedup_fields, not only the same fingerprint:
-- when the listed fields are all of params, the fingerprint with and without the list is
-- the same hash, and still a claim with null dedup_fields of a key completed with a list
-- (the replay fast path) and a claim with a list of a key completed without one (the full
-- path) are AC409, and write nothing.
begin;
\ir ../helpers.psql
select plan(6);

create temp table listed as
select * from actae.claim_execution('tap-cdd', 'listed', 'charge', '{"amount": 1}',
    array['amount']);
select actae.complete_execution(execution_id, claim_token, '"ok"') from listed;
create temp table whole as
select * from actae.claim_execution('tap-cdd', 'whole', 'charge', '{"amount": 1}');
select actae.complete_execution(execution_id, claim_token, '"ok"') from whole;

select is(l.fingerprint, w.fingerprint,
    'the list covers all of params: both keys have the same fingerprint')
from listed as l, whole as w;
select pg_temp.ledger_digest() as before \gset

select throws_ok(
    $$select * from actae.claim_execution('tap-cdd', 'listed', 'charge', '{"amount": 1}')$$,
    'AC409', null, 'a key completed with dedup_fields, claimed without: AC409');
select throws_ok(
    $$select * from actae.claim_execution('tap-cdd', 'whole', 'charge', '{"amount": 1}',
        array['amount'])$$,
    'AC409', null, 'a key completed without dedup_fields, claimed with them: AC409');
select is(
    pg_temp.error_of($$select actae.claim_execution('tap-cdd', 'listed', 'charge',
        '{"amount": 1}')$$) -> 'detail' -> 'stored_dedup_fields',
    '["amount"]'::jsonb, 'DETAIL names the stored dedup_fields');
select is(pg_temp.ledger_digest(), :'before', 'the refused claims wrote nothing');
select is(
    (select outcome from actae.claim_execution('tap-cdd', 'listed', 'charge',
        '{"amount": 1}', array['amount'])),
    'replayed', 'the same list replays');

select * from finish();
rollback;
