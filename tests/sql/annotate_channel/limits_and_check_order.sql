-- annotate_channel: the channel is checked first (an unknown channel is AC404 whatever the
-- other arguments; another tenant's too), then the arguments: display_name 1..256 bytes,
-- expected_revision 0..9223372036854775806 (AC400 naming them); a first annotation needs
-- expected_revision 0: any other is AC412 (current revision 0) and writes nothing.
begin;
\ir ../helpers.psql
select plan(7);

select actae.record_event('tap-alc', 'e', '{}');
select is(pg_temp.error_of($$select actae.annotate_channel('tap-alc-none', '', null, null, -1)$$)
    ->> 'sqlstate', 'AC404', 'an unknown channel is AC404 before bad arguments');
select is(pg_temp.error_of(format('select actae.annotate_channel(%L, %L, null, null, 0)',
    'tap-alc', repeat('n', 257))) -> 'detail' ->> 'argument', 'display_name',
    'a 257-byte display_name is AC400');
select is(pg_temp.error_of($$select actae.annotate_channel('tap-alc', 'x', null, null,
    9223372036854775807)$$) -> 'detail' ->> 'argument', 'expected_revision',
    'expected_revision 9223372036854775807 is AC400');
select pg_temp.ledger_digest() as before \gset
create temp table stale as
select pg_temp.error_of($$select actae.annotate_channel('tap-alc', 'x', null, null, 5)$$) as e;
select is((select e ->> 'sqlstate' from stale), 'AC412',
    'a first annotation expecting revision 5 is AC412');
select is((select e -> 'detail' ->> 'current_revision' from stale), '0', 'the current revision is 0');
select is((select count(*) from actae.annotations where channel_id = 'tap-alc'), 0::bigint,
    'and nothing is written');
select is((select outcome || '/' || revision from actae.annotate_channel('tap-alc',
    repeat('n', 256), null, null, 0)), 'updated/1', 'a 256-byte display_name at revision 0 is written');

select * from finish();
rollback;
