-- event_type and operation_id are 1..256 bytes, channel_id 1..256 bytes, the payload at
-- most 1 MiB; a SQL NULL payload is stored as JSON null. Every violation is AC400.
begin;
\ir ../helpers.psql
select plan(11);

select lives_ok(format($$select actae.record_event('tap-evlim', %L, '{}')$$, repeat('e', 256)),
    'event_type of 256 bytes is accepted');
select throws_ok(format($$select actae.record_event('tap-evlim', %L, '{}')$$, repeat('e', 257)),
    'AC400', 'event_type must be 1 to 256 bytes of text', 'event_type of 257 bytes is AC400');
select throws_ok(format($$select actae.record_event('tap-evlim', %L, '{}')$$, repeat('é', 129)),
    'AC400', null, 'event_type of 129 two-byte characters is AC400');
select throws_ok($$select actae.record_event('tap-evlim', null, '{}')$$,
    'AC400', null, 'a null event_type is AC400');
select lives_ok(
    format($$select actae.record_event('tap-evlim', 'e', '{}', %L)$$, repeat('o', 256)),
    'operation_id of 256 bytes is accepted');
select throws_ok(
    format($$select actae.record_event('tap-evlim', 'e', '{}', %L)$$, repeat('o', 257)),
    'AC400', 'operation_id must be 1 to 256 bytes of text', 'operation_id of 257 bytes is AC400');
select throws_ok($$select actae.record_event('tap-evlim', 'e', '{}', '')$$,
    'AC400', null, 'an empty operation_id is AC400');
select throws_ok(format($$select actae.record_event(%L, 'e', '{}')$$, repeat('c', 257)),
    'AC400', null, 'channel_id of 257 bytes is AC400');
select throws_ok(
    $$select actae.record_event('tap-evlim', 'e', jsonb_build_object('x', repeat('a', 1048560)))$$,
    'AC400', 'payload must be at most 1048576 bytes of JSON', 'a payload of 1 MiB + 1 is AC400');
select lives_ok(
    $$select actae.record_event('tap-evlim', 'e', jsonb_build_object('x', repeat('a', 1048559)))$$,
    'a payload of exactly 1 MiB is accepted');
create temp table null_payload as select * from actae.record_event('tap-evlim', 'e', null);
select is(
    (select payload from actae.events as e, null_payload as r
     where e.channel_id = 'tap-evlim' and e.cursor = r.cursor),
    'null'::jsonb, 'a SQL NULL payload is stored as JSON null');

select * from finish();
rollback;
