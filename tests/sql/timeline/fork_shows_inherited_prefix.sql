-- In a fork, timeline shows the inherited prefix (events up to the fork cursor and the
-- executions the fork inherits, from the source) and then the fork's own rows, with a clock
-- that keeps growing across the lineage; nothing the source did after the fork appears.
begin;
\ir ../helpers.psql
\ir ../console_helpers.psql
select plan(5);

select pg_temp.story('tap-tlf');
select actae.fork_channel('tap-tlf', 2, 'tap-tlf-fork');
select actae.record_event('tap-tlf-fork', 'retried', '{}');
select pg_temp.completed('tap-tlf-fork', 'charge:2', 'charge', '{"ok": true}');

select results_eq(
    $$select kind, cursor, source_channel_id, coalesce(event_type, key_name)
      from actae.timeline('tap-tlf-fork')$$,
    $$values ('event', 1::bigint, 'tap-tlf', 'started'), ('claimed', 1, 'tap-tlf', 'search:1'),
        ('completed', 1, 'tap-tlf', 'search:1'), ('event', 2, 'tap-tlf', 'planned'),
        ('event', 3, 'tap-tlf-fork', 'retried'), ('claimed', 3, 'tap-tlf-fork', 'charge:2'),
        ('completed', 3, 'tap-tlf-fork', 'charge:2')$$,
    'inherited prefix, then the fork''s own rows; the source''s failed charge is not inherited');
select is(
    (select bool_and(a.clock < b.clock) from
        (select clock, row_number() over () as n from actae.timeline('tap-tlf-fork')
         where kind = 'event') as a
        join (select clock, row_number() over () as n from actae.timeline('tap-tlf-fork')
         where kind = 'event') as b on b.n = a.n + 1),
    true, 'event clocks grow across the fork boundary');
select is(
    (select count(*) from actae.timeline('tap-tlf-fork') where event_type = 'gave_up'),
    0::bigint, 'the source''s events after the fork cursor are not in the fork');
select is(
    (select count(*) from actae.timeline('tap-tlf') where source_channel_id = 'tap-tlf-fork'),
    0::bigint, 'nothing of the fork appears in the source');
select is(
    (select count(*) from actae.timeline('tap-tlf-fork', (select max(clock)
        from actae.timeline('tap-tlf-fork') where source_channel_id = 'tap-tlf'))),
    3::bigint, 'after_clock = the last inherited clock gives just the fork''s own rows');

select * from finish();
rollback;
