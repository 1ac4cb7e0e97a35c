-- With dedup_fields, only those fields decide "same operation": changing any other
-- field (a note, a trace id) is still the same operation, so it is answered, not refused.
begin;
\ir ../helpers.psql
select plan(5);

create temp table first as
select * from actae.claim_execution('tap-nondedup', 'k', 'charge',
    '{"amount": 5, "to": "bob", "trace": "t-1"}', array['amount', 'to']);
create temp table second as
select * from actae.claim_execution('tap-nondedup', 'k', 'charge',
    '{"amount": 5, "to": "bob", "trace": "t-2", "note": "retry"}', array['amount', 'to']);

select is(s.fingerprint, f.fingerprint, 'non-dedup fields do not change the fingerprint')
from first as f, second as s;
select is(outcome, 'in_progress', 'the second call is the same operation (in_progress)')
from second;
select actae.complete_execution(execution_id, claim_token, '{"charge": "ch_1"}') from first;
select is(
    (select outcome from actae.claim_execution('tap-nondedup', 'k', 'charge',
        '{"amount": 5, "to": "bob"}', array['amount', 'to'])),
    'replayed', 'after completion it replays even with the other fields absent'
);
select throws_ok(
    $$select * from actae.claim_execution('tap-nondedup', 'k', 'charge',
        '{"amount": 6, "to": "bob", "trace": "t-1"}', array['amount', 'to'])$$,
    'AC409', null, 'a changed dedup field is still a conflict'
);
select is(
    (select fingerprint from actae.claim_execution('tap-nondedup', 'other', 'charge',
        '{"amount": 5, "to": "bob", "trace": "t-9"}', array['amount', 'to'])),
    f.fingerprint, 'another key with the same dedup fields has the same fingerprint'
) from first as f;

select * from finish();
rollback;
