-- Each element completes its execution with its result (SQL NULL and a null results array
-- store JSON null); one row per element in element order, each with the token shown to its
-- owner; repeating the batch with the same results is a no-op success.
begin;
\ir ../helpers.psql
select plan(5);

create temp table c as
select row_number() over () as n, b.*
from actae.claim_executions('tap-cx', array['a', 'b', 'c'], array['t', 't', 't'],
    array['{}', '{}', '{}']::jsonb[]) as b;

create temp table done as
select row_number() over () as n, d.*
from actae.complete_executions(
    (select array_agg(execution_id order by n) from c),
    (select array_agg(claim_token order by n) from c),
    array['1', null, '{"ok": true}']::jsonb[]
) as d;

select results_eq(
    $$select key_name, status, result from done order by n$$,
    $$values ('a'::text, 'completed'::text, '1'::jsonb), ('b', 'completed', 'null'),
        ('c', 'completed', '{"ok": true}')$$,
    'every element is completed with its own result, in element order');
select is((select count(*) from done where claim_token is not null), 3::bigint,
    'each row shows the owner its token');
select results_eq(
    $$select key_name, status::text, result from actae.executions where channel_id = 'tap-cx'
      order by key_name$$,
    $$select key_name, status::text, result from done order by n$$,
    'the stored rows are the returned ones');
select is(
    (select count(*) from actae.complete_executions(
        (select array_agg(execution_id order by n) from c),
        (select array_agg(claim_token order by n) from c),
        array['1', null, '{"ok": true}']::jsonb[])),
    3::bigint, 'repeating the batch with the same results succeeds');

create temp table d as select * from actae.claim_execution('tap-cx', 'd', 't', '{}');
select is(
    (select result from actae.complete_executions(
        (select array[execution_id] from d), (select array[claim_token] from d))),
    'null'::jsonb, 'a null results array stores JSON null');

select * from finish();
rollback;
