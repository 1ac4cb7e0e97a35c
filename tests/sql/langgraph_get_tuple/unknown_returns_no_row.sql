-- An unknown thread, namespace or checkpoint id is no row, not an error.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(3);

select pg_temp.lg_put('tap-lg-none', '', 'cp-1');
select is((select count(*) from actae.langgraph_get_tuple('tap-lg-nobody', '')), 0::bigint,
    'unknown thread');
select is((select count(*) from actae.langgraph_get_tuple('tap-lg-none', 'other')), 0::bigint,
    'unknown namespace');
select is((select count(*) from actae.langgraph_get_tuple('tap-lg-none', '', 'cp-9')),
    0::bigint, 'unknown checkpoint id');

select * from finish();
rollback;
