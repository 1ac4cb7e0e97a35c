-- timeline of a fork made at its source's head: a completion in the source after the last
-- event and before the fork (completed_clock = the fork's lineage clock) is inherited, so
-- the fork's timeline shows it (claimed and completed); a completion after the fork is not.
begin;
\ir ../helpers.psql
select plan(2);

select pg_temp.record_steps('tap-tfc', 1);
select pg_temp.completed('tap-tfc', 'paid', 'charge', '{"id": 1}');
select actae.fork_channel('tap-tfc', 1, 'tap-tfc-f');
select pg_temp.completed('tap-tfc', 'later', 'charge', '{"id": 2}');

select results_eq(
    $$select kind, key_name from actae.timeline('tap-tfc-f')$$,
    $$values ('event', null), ('claimed', 'paid'), ('completed', 'paid')$$,
    'the fork shows the completion it inherits, not the later one');
select is((select outcome from actae.claim_execution('tap-tfc-f', 'paid', 'charge', '{}')),
    'replayed', 'as the fork replays it');

select * from finish();
rollback;
