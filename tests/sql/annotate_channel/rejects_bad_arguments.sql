-- annotate_channel: unknown channel AC404; a bad display_name, tag, note or missing
-- expected_revision AC400 naming it, writing nothing; the auditor cannot annotate.
begin;
\ir ../helpers.psql
select plan(8);

select actae.create_channel('tap-anb');
create temp table digest as select pg_temp.ledger_digest() as d,
    (select count(*) from actae.annotations) as n;
select is(pg_temp.error_of($$select actae.annotate_channel('tap-nowhere', 'x', null, null, 0)$$)
    ->> 'sqlstate', 'AC404', 'unknown channel');
select is(pg_temp.error_of($$select actae.annotate_channel('tap-anb', '', null, null, 0)$$)
    -> 'detail' ->> 'argument', 'display_name', 'empty display_name');
select is(pg_temp.error_of(
    $$select actae.annotate_channel('tap-anb', 'x', array[repeat('t', 65)], null, 0)$$)
    -> 'detail' ->> 'argument', 'tags', 'a tag over 64 bytes');
select is(pg_temp.error_of(
    $$select actae.annotate_channel('tap-anb', 'x', array_fill('t'::text, array[33]), null, 0)$$)
    -> 'detail' ->> 'argument', 'tags', 'more than 32 tags');
select is(pg_temp.error_of(
    $$select actae.annotate_channel('tap-anb', 'x', null, repeat('n', 4097), 0)$$)
    -> 'detail' ->> 'argument', 'note', 'a note over 4096 bytes');
select is(pg_temp.error_of($$select actae.annotate_channel('tap-anb', 'x', null, null, null)$$)
    -> 'detail' ->> 'argument', 'expected_revision', 'missing expected_revision');
select is((select count(*) from actae.annotations), (select n from digest), 'nothing written');
set local role actae_auditor;
select throws_ok($$select actae.annotate_channel('tap-anb', 'x', null, null, 0)$$, '42501',
    null, 'the read-only auditor cannot annotate');

select * from finish();
rollback;
