-- Every event carries chain_sha256 = sha256(previous || ':' || cursor || ':' ||
-- event_type || ':' || payload::text), the first chaining from ''. Recomputed here.
begin;
\ir ../helpers.psql
select plan(4);

select actae.record_event('tap-chain', 'user.message', '{"text": "héllo"}');
select actae.record_event('tap-chain', 'tool.call', '{"b": 1, "a": [true, null]}');
select actae.record_event('tap-chain', 'note', '"plain"');

create temp table expected as
with recursive e1 as (
    select pg_temp.sha256_hex(':1:user.message:{"text": "héllo"}') as c
), e2 as (
    select pg_temp.sha256_hex(c || ':2:tool.call:{"a": [true, null], "b": 1}') as c from e1
), e3 as (
    select pg_temp.sha256_hex(c || ':3:note:"plain"') as c from e2
)
select 1::bigint as cursor, c from e1
union all select 2, c from e2
union all select 3, c from e3;

select results_eq(
    $$select cursor, chain_sha256 from actae.list_events('tap-chain') order by cursor$$,
    $$select cursor, c from expected order by cursor$$,
    'each chain value follows the formula');
select is((select head_chain_sha256 from actae.get_channel('tap-chain')),
    (select c from expected where cursor = 3), 'the channel''s head chain is the last value');
select is(pg_temp.fold_chain('tap-chain', 3), (select c from expected where cursor = 3),
    'folding list_events reproduces it');
select is(
    (select chain_sha256 from actae.list_events('tap-chain') where cursor = 1),
    encode(sha256(convert_to(':1:user.message:{"text": "héllo"}', 'UTF8')), 'hex'),
    'the first event chains from the empty string');

select * from finish();
rollback;
