-- timeline pages: at most max_rows rows ending at a whole clock, so paging with after_clock
-- = the last row's clock returns every row exactly once; a single clock with more points
-- than max_rows comes whole.
begin;
\ir ../helpers.psql
\ir ../console_helpers.psql
select plan(4);

select pg_temp.story('tap-tlp');
select pg_temp.record_steps('tap-tlp', 20);

create function pg_temp.paged(p_size integer) returns setof text
language plpgsql
as $$
declare
    v_after bigint;
    v_row actae.timeline_row;
    v_seen integer;
begin
    loop
        v_seen := 0;
        for v_row in select * from actae.timeline('tap-tlp', v_after, p_size) loop
            v_seen := v_seen + 1;
            v_after := v_row.clock;
            return next v_row.kind || ':' || v_row.clock || ':'
                || coalesce(v_row.key_name, v_row.event_type);
        end loop;
        exit when v_seen = 0;
    end loop;
end;
$$;

select is(
    (select array_agg(t) from pg_temp.paged(2) as t),
    (select array_agg(kind || ':' || clock || ':' || coalesce(key_name, event_type))
     from actae.timeline('tap-tlp', null, 10000)),
    'pages of 2 rows give the whole timeline, once each, in order');
select is(
    (select array_agg(t) from pg_temp.paged(5) as t),
    (select array_agg(kind || ':' || clock || ':' || coalesce(key_name, event_type))
     from actae.timeline('tap-tlp', null, 10000)),
    'pages of 5 rows too');
select results_eq(
    $$select kind from actae.timeline('tap-tlp', null, 2)$$,
    $$values ('event'), ('claimed'), ('completed')$$,
    'a clock with more rows than max_rows comes whole');
select is((select count(*) from actae.timeline('tap-tlp', null, 4)), 3::bigint,
    'a page stops before a clock it cannot hold whole');

select * from finish();
rollback;
