-- expected_version is required (AC400 when null); event_type, channel_id and operation_id
-- limits apply; the state is at most 8 MiB; a SQL NULL state is stored as JSON null.
begin;
\ir ../helpers.psql
select plan(7);

create temp table digest_before as select pg_temp.ledger_digest() as d;
select throws_ok($$select actae.transition_state('tap-trbad', 'e', '{}', '{}', null)$$,
    'AC400', 'expected_version is required', 'a null expected_version is AC400');
select throws_ok($$select actae.transition_state('tap-trbad', 'e', '{}', '{}', -1)$$,
    'AC400', null, 'a negative expected_version is AC400');
select throws_ok($$select actae.transition_state('tap-trbad', '', '{}', '{}', 0)$$,
    'AC400', null, 'an empty event_type is AC400');
select throws_ok(
    format($$select actae.transition_state('tap-trbad', 'e', '{}', '{}', 0, null, %L)$$,
        repeat('o', 257)),
    'AC400', null, 'an operation_id of 257 bytes is AC400');
select throws_ok(
    $$select actae.transition_state('tap-trbad', 'e', '{}',
        jsonb_build_object('x', repeat('a', 8388608 - 16)), 0)$$,
    'AC400', 'state must be at most 8388608 bytes of JSON', 'a state of 8 MiB + 1 byte is AC400');
select is(pg_temp.ledger_digest(), d, 'nothing was written') from digest_before;
select actae.transition_state('tap-trbad', 'e', '{}', null, 0);
select is((select state from actae.get_state('tap-trbad')), 'null'::jsonb,
    'a SQL NULL state is stored as JSON null');

select * from finish();
rollback;
