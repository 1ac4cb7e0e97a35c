-- writes must be an array of {"idx": integer, "channel": text, "value": any}; task ids are
-- 1..100 bytes. Anything else is AC400 and writes nothing.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(6);

create temp table digest_before as select pg_temp.lg_digest() as d;
select throws_ok($$select actae.langgraph_put_writes('t', '', 'cp', 'task', '', '{}')$$,
    'AC400', null, 'an object instead of an array');
select throws_ok($$select actae.langgraph_put_writes('t', '', 'cp', 'task', '',
    '[{"idx": "0", "channel": "c", "value": 1}]')$$, 'AC400', null, 'a text idx');
select throws_ok($$select actae.langgraph_put_writes('t', '', 'cp', 'task', '',
    '[{"idx": 0.5, "channel": "c", "value": 1}]')$$, 'AC400', null, 'a fractional idx');
select throws_ok($$select actae.langgraph_put_writes('t', '', 'cp', 'task', '',
    '[{"idx": 0, "channel": "c"}]')$$, 'AC400', null, 'no value');
select throws_ok(format($$select actae.langgraph_put_writes('t', '', 'cp', %L, '', '[]')$$,
    repeat('x', 101)), 'AC400', 'task_id must be 1 to 100 bytes of text', 'a long task_id');
select is(pg_temp.lg_digest(), d, 'nothing was written') from digest_before;

select * from finish();
rollback;
