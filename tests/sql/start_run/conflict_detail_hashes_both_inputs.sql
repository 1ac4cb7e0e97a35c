-- The AC409 of a start_run with another input carries both inputs' sha256 in DETAIL: the
-- stored one and the given one, each of its jsonb text, so a caller sees which differ.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql

select plan(3);

select actae.start_run('tap-sr-dh', 'refund', '{"a": 1}', 'tap-q-sr-dh');
create temp table e as
select pg_temp.error_of($$select actae.start_run('tap-sr-dh', 'refund', '{"a": 2}')$$) as e;
select is(e -> 'detail' ->> 'stored_input_sha256', pg_temp.sha256_hex('{"a": 1}'),
    'DETAIL has the stored input hash') from e;
select is(e -> 'detail' ->> 'given_input_sha256', pg_temp.sha256_hex('{"a": 2}'),
    'and the given one') from e;
select is(e -> 'detail' ->> 'given_agent', 'refund', 'and the given agent') from e;

select * from finish();
rollback;
