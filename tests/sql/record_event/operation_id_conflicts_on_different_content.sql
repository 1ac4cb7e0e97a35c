-- An operation_id reused with a different payload or event_type is AC409
-- (idempotency_conflict), and nothing is written.
begin;
\ir ../helpers.psql
select plan(5);

select actae.record_event('tap-opc', 'tool.call', '{"a": 1}', 'op-1');
create temp table digest_before as select pg_temp.ledger_digest() as d;

select throws_ok($$select actae.record_event('tap-opc', 'tool.call', '{"a": 2}', 'op-1')$$,
    'AC409', null, 'a different payload is AC409');
select throws_ok($$select actae.record_event('tap-opc', 'tool.result', '{"a": 1}', 'op-1')$$,
    'AC409', null, 'a different event_type is AC409');
select is(
    pg_temp.error_of($$select actae.record_event('tap-opc', 'tool.call', '{"a": 2}', 'op-1')$$)
        -> 'detail' ->> 'operation_id',
    'op-1', 'DETAIL names the operation_id');
select is(pg_temp.ledger_digest(), d, 'nothing was written') from digest_before;
select is((select outcome from actae.record_event('tap-opc2', 'tool.call', '{"a": 2}', 'op-1')),
    'recorded', 'operation_ids are per channel: another channel may use op-1');

select * from finish();
rollback;
