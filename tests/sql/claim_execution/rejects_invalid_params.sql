-- params must be a JSON object; dedup_fields must be null or a non-empty list of names
-- that are all keys of params (a silent empty fingerprint would make every call "the
-- same"). Each is AC400 naming the argument, and nothing is written.
begin;
\ir ../helpers.psql
select plan(12);

create temp table digest_before as select pg_temp.ledger_digest() as d;

select throws_ok($$select * from actae.claim_execution('tap-params', 'k', 't', '[1, 2]')$$,
    'AC400', 'params must be a JSON object', 'an array is AC400');
select throws_ok($$select * from actae.claim_execution('tap-params', 'k', 't', '"text"')$$,
    'AC400', 'params must be a JSON object', 'a string is AC400');
select throws_ok($$select * from actae.claim_execution('tap-params', 'k', 't', 'null')$$,
    'AC400', 'params must be a JSON object', 'JSON null is AC400');
select throws_ok($$select * from actae.claim_execution('tap-params', 'k', 't', null)$$,
    'AC400', 'params must be a JSON object', 'SQL NULL is AC400');
select throws_ok(
    $$select * from actae.claim_execution('tap-params', 'k', 't', '{"a": 1}', array['a', 'b'])$$,
    'AC400', null, 'a dedup field missing from params is AC400'
);
select is(
    pg_temp.error_of($$select * from actae.claim_execution('tap-params', 'k', 't',
        '{"a": 1}', array['a', 'b', 'c'])$$) -> 'detail',
    '{"argument": "dedup_fields", "missing": ["b", "c"], "missing_count": 2}'::jsonb,
    'DETAIL names the argument and lists the missing fields (the first five) and their count'
);
select throws_ok(
    $$select * from actae.claim_execution('tap-params', 'k', 't', '{"a": 1}', '{}'::text[])$$,
    'AC400', null, 'an empty dedup list is AC400'
);
select throws_ok(
    $$select * from actae.claim_execution('tap-params', 'k', 't', '{"a": 1}', array[null::text])$$,
    'AC400', null, 'a null dedup field name is AC400'
);
select throws_ok(
    $$select * from actae.claim_execution('tap-params', 'k', 't', '{"a": 1}', array[''])$$,
    'AC400', null, 'an empty dedup field name is AC400'
);
select is(
    pg_temp.error_of($$select * from actae.claim_execution('tap-params', 'k', 't',
        '{"a": 1}', '{}'::text[])$$) -> 'detail' ->> 'argument',
    'dedup_fields', 'DETAIL names dedup_fields'
);
select is(
    pg_temp.error_of($$select * from actae.claim_execution('tap-params', 'k', 't', '[]')$$)
        -> 'detail' ->> 'argument',
    'params', 'DETAIL names params'
);
select is(pg_temp.ledger_digest(), d, 'nothing was written by any of these calls')
from digest_before;

select * from finish();
rollback;
