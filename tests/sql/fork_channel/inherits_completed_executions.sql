-- A claim in the fork for a key completed in the inherited prefix replays the ancestor's
-- result: outcome replayed, the ancestor's row (its channel_id is where it ran), and no
-- new executions row anywhere. A different fingerprint is still AC409.
begin;
\ir ../helpers.psql
select plan(7);

select actae.record_event('tap-inh', 'start', '{}');
create temp table done as
select * from pg_temp.completed('tap-inh', 'charge-1', 'stripe.charge', '{"id": "ch_1"}');
select actae.record_event('tap-inh', 'charged', '{}');
select actae.fork_channel('tap-inh', 2, 'tap-inh-fork');
create temp table digest_before as select pg_temp.ledger_digest() as d;

create temp table replay as
select * from actae.claim_execution('tap-inh-fork', 'charge-1', 'stripe.charge', '{}');
select is(outcome, 'replayed', 'the inherited completion replays') from replay;
select is(result, '{"id": "ch_1"}'::jsonb, 'with the stored result') from replay;
select is(r.execution_id, d.execution_id, 'it is the ancestor''s execution')
from replay as r, done as d;
select is(channel_id, 'tap-inh', 'whose channel_id is where it ran') from replay;
select is(pg_temp.ledger_digest(), d, 'no row was written anywhere') from digest_before;
select is((select execution_id from actae.get_execution('tap-inh-fork', 'charge-1')),
    d.execution_id, 'get_execution by key in the fork resolves to the inherited row')
from done as d;
select throws_ok(
    $$select actae.claim_execution('tap-inh-fork', 'charge-1', 'stripe.charge', '{"x": 1}')$$,
    'AC409', null, 'an inherited key with a different fingerprint is AC409');

select * from finish();
rollback;
