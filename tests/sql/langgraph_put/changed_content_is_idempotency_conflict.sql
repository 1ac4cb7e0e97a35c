-- A checkpoint id stored again with different content (state or metadata) is AC409 and
-- writes nothing: a checkpoint is history, never overwritten.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(3);

select pg_temp.lg_put('tap-lg-409', '', 'cp-1', null, '{"step": 0}');
create temp table digest_before as select pg_temp.lg_digest() as d;
select throws_ok($$select pg_temp.lg_put('tap-lg-409', '', 'cp-1', null, '{"step": 1}')$$,
    'AC409', null, 'other metadata under the same id is AC409');
select throws_ok($$select pg_temp.lg_put('tap-lg-409', '', 'cp-1', null, '{"step": 0}',
    '{"id": "cp-1", "channel_values": {"x": {"value": 2}}}')$$,
    'AC409', null, 'another state under the same id is AC409');
select is(pg_temp.lg_digest(), d, 'nothing was written') from digest_before;

select * from finish();
rollback;
