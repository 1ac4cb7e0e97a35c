-- timeline: within one clock the event comes first, then the execution points, even when
-- an execution point's time is earlier than the event's recorded_at (clocks order the
-- timeline; times only order points within a clock). The event's time is moved later here.
begin;
\ir ../helpers.psql
select plan(1);

select pg_temp.record_steps('tap-tef', 1);
select pg_temp.completed('tap-tef', 'k', 't', '{}');
update actae.events set recorded_at = recorded_at + interval '1 hour'
where channel_id = 'tap-tef' and cursor = 1;

select results_eq(
    $$select kind from actae.timeline('tap-tef') where clock =
        (select clock from actae.timeline('tap-tef') where kind = 'completed')$$,
    $$values ('event'), ('completed')$$,
    'the event at a clock comes before the completion at that clock');

select * from finish();
rollback;
