-- Key order and whitespace in params never matter: '{"a":1,"b":2}' and '{ "b":2, "a":1 }'
-- are the same operation with the same fingerprint, whether or not dedup_fields is given.
begin;
\ir ../helpers.psql
select plan(4);

create temp table first as
select * from actae.claim_execution('tap-order', 'k', 't', '{"a":1,"b":2}');
create temp table second as
select * from actae.claim_execution('tap-order', 'k', 't', '{ "b":2,   "a":1 }');

select is(s.fingerprint, f.fingerprint, 'same fingerprint') from first as f, second as s;
select is(outcome, 'in_progress', 'the reordered params are the same operation') from second;
select is(
    (select fingerprint from actae.claim_execution('tap-order', 'k2', 't',
        '{"x": {"b": [1, 2], "a": null}, "y": 0}', array['x'])),
    (select fingerprint from actae.claim_execution('tap-order', 'k3', 't',
        '{"y": 0,"x":{ "a" : null , "b" : [ 1 ,2 ] }}', array['x'])),
    'nested key order and whitespace do not matter in a dedup field'
);
select is(
    (select fingerprint from actae.claim_execution('tap-order', 'k4', 't',
        '{"a":1,"b":2}', array['a', 'b'])),
    (select fingerprint from actae.claim_execution('tap-order', 'k5', 't',
        '{ "b":2, "a":1 }', array['b', 'a'])),
    'nor does the order of dedup_fields'
);

select * from finish();
rollback;
