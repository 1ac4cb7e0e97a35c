-- The fingerprint is the lower-case hex sha256 of the canonical jsonb text (UTF-8) of
-- params restricted to dedup_fields (all of params when null). The expected values are
-- computed here from the canonical text, and pinned to digests computed outside
-- PostgreSQL (Python hashlib), so any language can reproduce them.
begin;
\ir ../helpers.psql
select plan(6);

create temp table whole as
select * from actae.claim_execution('tap-fphash', 'whole', 't',
    '{"b":[1,2],"a":{"y":1,"x":"é"}}');
create temp table subset as
select * from actae.claim_execution('tap-fphash', 'subset', 't',
    '{"note":"ignored","amount":5,"to":"bob"}', array['amount', 'to']);

select is(fingerprint, pg_temp.sha256_hex('{"a": {"x": "é", "y": 1}, "b": [1, 2]}'),
    'all params: sha256 of the canonical jsonb text') from whole;
select is(fingerprint, '344f33686469eba0a5ca8f8a930ac6bdcd5abce6f8469a5ae4dd2e55dc4a7551',
    'all params: equals the digest computed outside PostgreSQL') from whole;
select is(fingerprint, pg_temp.sha256_hex('{"to": "bob", "amount": 5}'),
    'dedup_fields: sha256 of the canonical text of the restricted object') from subset;
select is(fingerprint, 'e97da01c5b6f6c6e1fa41f19690fe037c8137d9c4a5526acdc1ee4551f3b9237',
    'dedup_fields: equals the digest computed outside PostgreSQL') from subset;
select is(
    (select fingerprint from actae.executions where execution_id = s.execution_id),
    s.fingerprint, 'the stored fingerprint is the returned one'
) from subset as s;
select is(
    (select fingerprint from actae.claim_execution('tap-fphash', 'one', 't',
        '{"amount": 5, "to": "bob"}', array['to'])),
    pg_temp.sha256_hex('{"to": "bob"}'), 'a single dedup field restricts to that field'
);

select * from finish();
rollback;
