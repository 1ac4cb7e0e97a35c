-- Every SECURITY DEFINER function in schema actae runs with the settings sql/91 and the
-- function definitions ship, whatever its caller's session says: lock_timeout = 5s (a
-- caller holding a row lock delays others by at most that, then 55P03) and the pinned
-- search_path (definer_functions_pin_search_path.sql); besides those only the planner
-- settings chosen per function (plan_cache_mode, enable_bitmapscan), and on Citus the text
-- styles DateStyle, IntervalStyle and standard_conforming_strings; no other setting.
-- Without Citus the planner settings are exactly: claim_executions and complete_executions
-- generic plans, claim_run generic plans without bitmap scans, list_events without bitmap
-- scans, langgraph_list custom plans.
begin;
\ir ../helpers.psql
select plan(4);

create temp table setting as
select p.oid::regprocedure::text as function, split_part(c.setting, '=', 1) as name,
    substr(c.setting, length(split_part(c.setting, '=', 1)) + 2) as value
from pg_proc as p
cross join lateral unnest(p.proconfig) as c (setting)
where p.pronamespace = 'actae'::regnamespace and p.prosecdef;
create temp table citus as
select exists (select from pg_extension where extname = 'citus') as installed;

select cmp_ok(
    (select count(*) from pg_proc where pronamespace = 'actae'::regnamespace and prosecdef),
    '>', 50::bigint, 'there are definer functions to check');
select is(
    (select string_agg(p.oid::regprocedure::text, ', ') from pg_proc as p
     where p.pronamespace = 'actae'::regnamespace and p.prosecdef
       and not exists (select from setting as s where s.function = p.oid::regprocedure::text
           and s.name = 'lock_timeout' and s.value = '5s')),
    null, 'every definer function sets lock_timeout = 5s');
select is(
    (select string_agg(format('%s %s=%s', function, name, value), ', ') from setting
     where lower(name) not in ('search_path', 'lock_timeout', 'plan_cache_mode',
         'enable_bitmapscan')
       and not ((select installed from citus)
           and lower(name) in ('datestyle', 'intervalstyle', 'standard_conforming_strings'))),
    null, 'no definer function sets anything else');
select is(
    (select array_agg(format('%s %s=%s', function, name, value)
         order by format('%s %s=%s', function, name, value))
     from setting where name in ('plan_cache_mode', 'enable_bitmapscan')
       and not (select installed from citus)),
    case when not (select installed from citus) then array[
        'actae.claim_executions(text,text[],text[],jsonb[],jsonb[],integer) plan_cache_mode=force_generic_plan',
        'actae.claim_run(text,text,text[],integer) enable_bitmapscan=off',
        'actae.claim_run(text,text,text[],integer) plan_cache_mode=force_generic_plan',
        'actae.complete_executions(uuid[],uuid[],jsonb[],text) plan_cache_mode=force_generic_plan',
        'actae.langgraph_list(text,text,jsonb,text,integer,text) plan_cache_mode=force_custom_plan',
        'actae.list_events(text,bigint,integer) enable_bitmapscan=off'
    ] end,
    'without Citus the planner settings are exactly the chosen ones');

select * from finish();
rollback;
