-- actae._plan_cache_mode pins a function's plan_cache_mode: the single-node mode where Citus
-- is not installed ('default' removes the setting again), and the functions whose statements
-- must not be planned anew on every call carry their mode after the migrations.
begin;
\ir ../helpers.psql
select plan(5);

create function pg_temp.probe() returns integer language sql as 'select 1';

select actae._plan_cache_mode('pg_temp.probe()', 'force_generic_plan', 'force_custom_plan');
select is(
    (select proconfig from pg_proc where oid = 'pg_temp.probe()'::regprocedure),
    array['plan_cache_mode=force_generic_plan'],
    'without Citus the function gets the single-node mode'
);
select actae._plan_cache_mode('pg_temp.probe()', 'default', 'force_custom_plan');
select is(
    (select proconfig from pg_proc where oid = 'pg_temp.probe()'::regprocedure),
    null,
    'default removes the setting'
);
select throws_ok(
    $$select actae._plan_cache_mode('pg_temp.probe()', 'sometimes', 'default')$$,
    '22023', null, 'a mode PostgreSQL does not know is refused'
);
select is(
    (select array_agg(p.oid::regprocedure::text || ' ' || c.setting order by 1)
        from pg_proc as p
        cross join lateral unnest(p.proconfig) as c (setting)
        where p.pronamespace = 'actae'::regnamespace and c.setting like 'plan_cache_mode=%'
            and p.proname in ('claim_run', 'claim_executions', 'complete_executions')),
    array[
        'actae.claim_executions(text,text[],text[],jsonb[],jsonb[],integer)'
        || ' plan_cache_mode=force_generic_plan',
        'actae.claim_run(text,text,text[],integer) plan_cache_mode=force_generic_plan',
        'actae.complete_executions(uuid[],uuid[],jsonb[],text)'
        || ' plan_cache_mode=force_generic_plan'
    ],
    'claim_run and the batch functions use generic plans after the migrations'
);
select ok(
    (select proconfig from pg_proc
        where oid = 'actae.claim_run(text, text, text[], integer)'::regprocedure)
    @> array['search_path=pg_catalog, pg_temp', 'enable_bitmapscan=off'],
    'claim_run keeps its other settings (search_path, no bitmap scans)'
);

select * from finish();
rollback;
