-- A channel that already has a run of another agent or another input raises AC409 with
-- DETAIL naming both agents and both input hashes; nothing is written.
begin;
\ir ../helpers.psql
\ir ../run_helpers.psql
select plan(5);

select actae.start_run('tap-sr3', 'refund', '{"a": 1}', 'tap-q-sr3');
create temp table before as select pg_temp.run_json('tap-sr3') as j;
select throws_ok($$select actae.start_run('tap-sr3', 'other', '{"a": 1}')$$, 'AC409', null,
    'another agent is AC409');
select throws_ok($$select actae.start_run('tap-sr3', 'refund', '{"a": 2}')$$, 'AC409', null,
    'another input is AC409');
create temp table e as
select pg_temp.error_of($$select actae.start_run('tap-sr3', 'other', '{"a": 2}')$$) as e;
select is(e -> 'detail' ->> 'stored_agent', 'refund', 'DETAIL has the stored agent') from e;
select is(e -> 'detail' ->> 'given_input_sha256', pg_temp.sha256_hex('{"a": 2}'),
    'DETAIL has the given input hash') from e;
select is(pg_temp.run_json('tap-sr3'), (select j from before), 'nothing was written');

select * from finish();
rollback;
