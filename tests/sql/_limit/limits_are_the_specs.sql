-- actae._limit is the one place Actae's limits are written (SPEC section 3a): every
-- argument a function checks with the two-argument _check_text / _check_json or the
-- three-argument _check_range has a limit there, the values are the documented ones, and
-- a limit used on the hot path is folded into a constant when the caller is planned.
begin;
\ir ../helpers.psql
select plan(6);

select results_eq(
    $$select a.name, actae._limit(a.name) from unnest(array[
        'channel_id', 'tool_name', 'event_type', 'operation_id', 'key_name', 'lease_seconds',
        'params', 'payload', 'result', 'max_events', 'max_rows'
    ]) with ordinality as a (name, n) order by a.n$$,
    $$values ('channel_id', 256::bigint), ('tool_name', 256), ('event_type', 256),
        ('operation_id', 256), ('key_name', 1024), ('lease_seconds', 86400),
        ('params', 1048576), ('payload', 1048576), ('result', 1048576),
        ('max_events', 100000), ('max_rows', 100000)$$,
    'the limits SPEC section 3a documents'
);
select is(actae._limit('no such argument'), null, 'an argument without a limit has none');

-- Every argument name passed to a limit-reading check in any Actae function has a limit.
create temp table used as
select distinct coalesce(m[1], m[2]) as argument
from pg_proc as p
cross join lateral regexp_matches(
    p.prosrc,
    'actae\._check_(?:text|json)\([^,()]+, ''(\w+)''\)'
    '|actae\._check_range\([^,()]+, ''(\w+)'', -?\d+\)',
    'g'
) as r (m)
where p.pronamespace = 'actae'::regnamespace;
select cmp_ok((select count(*) from used), '>=', 15::bigint,
    'the functions check at least 15 distinct arguments against actae._limit');
select is(
    (select string_agg(argument, ', ' order by argument) from used
     where actae._limit(argument) is null),
    null, 'every checked argument has a limit'
);

-- The limit reaches the error a caller sees.
select is(
    pg_temp.error_of($$select actae.record_event(repeat('x', 257), 'step', '{}')$$)
        -> 'detail' ->> 'max_bytes',
    actae._limit('channel_id')::text, 'the AC400 DETAIL carries actae._limit''s value'
);
-- Folded at planning: the planned expression holds the constant, not a call.
create function pg_temp.plan_of(p_sql text) returns text
language plpgsql
as $$
declare
    v_plan json;
begin
    execute 'explain (verbose, costs off, format json) ' || p_sql into v_plan;
    return v_plan::text;
end;
$$;
select ok(
    pg_temp.plan_of($$select octet_length('abc'::text || random()) <= actae._limit('key_name')$$)
        !~ '_limit'
    and pg_temp.plan_of(
        $$select octet_length('abc'::text || random()) <= actae._limit('key_name')$$
    ) ~ '1024',
    'actae._limit(''key_name'') is the constant 1024 in the planned expression'
);

select * from finish();
rollback;
