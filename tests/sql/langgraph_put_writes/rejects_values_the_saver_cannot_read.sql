-- A pending write's value must have the shape the saver reads back: {"value": v} or
-- {"type": t, "data": base64}. Anything else is AC400 naming writes, and writes nothing.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(4);

select pg_temp.lg_put('tap-lg-wshape', '', 'cp-1');
select pg_temp.lg_digest() as before \gset
create temp table seen (what text, value jsonb);
insert into seen
select c.what, pg_temp.error_of(format(
    $$select pg_temp.lg_write('tap-lg-wshape', '', 'cp-1', 'task', 0, 'ch', %L)$$, c.value))
from (values
    ('a bare value', '5'),
    ('an object without value', '{"v": 5}'),
    ('data that is not base64', '{"type": "msgpack", "data": "!!notbase64"}'),
    ('data without a type', '{"data": "AQL/"}'),
    ('a blob reference', '{"type": "msgpack", "blob": 1}')
) as c (what, value);

select is((select count(*) from seen where value ->> 'sqlstate' = 'AC400'
    and value -> 'detail' ->> 'argument' = 'writes'), 5::bigint,
    'every value the saver cannot read is AC400 naming writes');
select is(pg_temp.lg_digest(), :'before', 'nothing was written');
select is(actae.langgraph_put_writes('tap-lg-wshape', '', 'cp-1', 'task', '',
    '[{"idx": 0, "channel": "a", "value": {"value": null}},
      {"idx": 1, "channel": "b", "value": {"type": "msgpack", "data": "AQL/"}}]'), 2,
    'the saver''s shapes are recorded');
select is((select pending_writes from actae.langgraph_get_tuple('tap-lg-wshape', '')),
    '[["task", "a", {"value": null}], ["task", "b", {"type": "msgpack", "data": "AQL/"}]]'::jsonb,
    'and read back');

select * from finish();
rollback;
