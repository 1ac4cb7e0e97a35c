-- dedup_fields are part of the operation's identity: the same key with a different list
-- (or null instead of a list) is AC409. Order and repetition inside the list do not matter.
begin;
\ir ../helpers.psql
select plan(5);

select lives_ok(
    $$select * from actae.claim_execution('tap-dedup', 'k', 'charge',
        '{"amount": 1, "to": "a", "note": "x"}', array['amount', 'to'])$$,
    'claimed with dedup_fields {amount,to}'
);
select throws_ok(
    $$select * from actae.claim_execution('tap-dedup', 'k', 'charge',
        '{"amount": 1, "to": "a", "note": "x"}', array['amount'])$$,
    'AC409', null, 'a shorter dedup list is AC409'
);
select throws_ok(
    $$select * from actae.claim_execution('tap-dedup', 'k', 'charge',
        '{"amount": 1, "to": "a", "note": "x"}', array['amount', 'to', 'note'])$$,
    'AC409', null, 'a longer dedup list is AC409'
);
select throws_ok(
    $$select * from actae.claim_execution('tap-dedup', 'k', 'charge',
        '{"amount": 1, "to": "a", "note": "x"}')$$,
    'AC409', null, 'no dedup list (all of params) is AC409'
);
select is(
    (select outcome from actae.claim_execution('tap-dedup', 'k', 'charge',
        '{"amount": 1, "to": "a", "note": "x"}', array['to', 'amount', 'to'])),
    'in_progress', 'the same fields in another order, repeated, are the same list'
);

select * from finish();
rollback;
