-- Paging a timeline with many tool calls between events, at any page size, gives exactly
-- the rows of the whole timeline read at once, in the same order — in a root channel and
-- in a fork (whose pages cross the lineage boundary).
begin;
\ir ../helpers.psql
\ir ../console_helpers.psql
select plan(6);

create function pg_temp.busy(p text, p_events integer) returns void
language plpgsql
as $$
declare
    v_claim actae.execution_row;
begin
    for i in 1 .. p_events loop
        perform actae.record_event(p, 'step', jsonb_build_object('i', i));
        if i % 3 = 0 then
            perform pg_temp.completed(p, p || ':done:' || i, 'search', to_jsonb(i));
            perform pg_temp.completed(p, p || ':more:' || i, 'search', to_jsonb(i));
        end if;
        if i % 5 = 0 then
            v_claim := actae.claim_execution(p, p || ':flaky:' || i, 'charge', '{}');
            perform pg_temp.expire(v_claim.execution_id);
            v_claim := actae.claim_execution(p, p || ':flaky:' || i, 'charge', '{}');
            perform actae.fail_execution(v_claim.execution_id, 'no', v_claim.claim_token, false);
        end if;
    end loop;
end;
$$;

select pg_temp.busy('tap-tlw', 30);
select actae.fork_channel('tap-tlw', 17, 'tap-tlw-fork');
select pg_temp.busy('tap-tlw-fork', 12);

select is((select array_agg(t) from pg_temp.timeline_paged('tap-tlw', 1) as t), pg_temp.timeline_whole('tap-tlw'),
    'root, pages of 1');
select is((select array_agg(t) from pg_temp.timeline_paged('tap-tlw', 4) as t), pg_temp.timeline_whole('tap-tlw'),
    'root, pages of 4');
select is((select array_agg(t) from pg_temp.timeline_paged('tap-tlw', 7) as t), pg_temp.timeline_whole('tap-tlw'),
    'root, pages of 7');
select is((select array_agg(t) from pg_temp.timeline_paged('tap-tlw-fork', 3) as t),
    pg_temp.timeline_whole('tap-tlw-fork'), 'fork, pages of 3');
select is((select array_agg(t) from pg_temp.timeline_paged('tap-tlw-fork', 5) as t),
    pg_temp.timeline_whole('tap-tlw-fork'), 'fork, pages of 5');
select is(cardinality(pg_temp.timeline_whole('tap-tlw')),
    30 + 20 * 2 + 6 * 3, 'the whole timeline: 30 events, 20 completed calls, 6 failed');

select * from finish();
rollback;
