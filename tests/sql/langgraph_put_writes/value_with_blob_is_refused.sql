-- A write's value {"value": any} must not also carry "blob" (a blob reference is not a
-- stored value): it is AC400 naming writes, and nothing is written.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(3);

select pg_temp.lg_put('tap-lg-blob', '', 'cp-1');
create temp table digest_before as select pg_temp.lg_digest() as d;
select throws_ok($$select actae.langgraph_put_writes('tap-lg-blob', '', 'cp-1', 'task', '',
    '[{"idx": 0, "channel": "c", "value": {"value": 1, "blob": 1}}]')$$,
    'AC400', null, 'a value with a blob');
select is(pg_temp.error_of($$select actae.langgraph_put_writes('tap-lg-blob', '', 'cp-1',
    'task', '', '[{"idx": 0, "channel": "c", "value": {"value": 1, "blob": 1}}]')$$)
    -> 'detail' ->> 'argument', 'writes', 'naming writes');
select is(pg_temp.lg_digest(), d, 'nothing was written') from digest_before;

select * from finish();
rollback;
