-- complete_executions takes at most 1000 executions (actae._limit('execution_ids')): 1001
-- execution ids are AC400 naming execution_ids, before any element is looked at; 1000 are
-- not refused for their number.
begin;
\ir ../helpers.psql
select plan(3);

create function pg_temp.ids(p_count int) returns uuid[] language sql
as $$ select array(select gen_random_uuid() from generate_series(1, p_count)) $$;

create temp table refused as
select pg_temp.error_of(format($$select actae.complete_executions(%L, %L, null)$$,
    pg_temp.ids(1001), pg_temp.ids(1001))) as e;
select is((select e ->> 'sqlstate' from refused), 'AC400', '1001 executions are AC400');
select is((select e -> 'detail' ->> 'argument' from refused), 'execution_ids',
    'naming execution_ids');
select isnt(
    pg_temp.error_of(format($$select actae.complete_executions(%L, %L, null)$$,
        pg_temp.ids(1000), pg_temp.ids(1000))) -> 'detail' ->> 'argument',
    'execution_ids', '1000 executions are not refused for their number'
);

select * from finish();
rollback;
