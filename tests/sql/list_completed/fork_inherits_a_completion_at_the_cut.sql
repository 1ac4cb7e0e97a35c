-- The fork cut is inclusive in list_completed as in a claim: a completion made right after
-- the event at the fork's cursor (its completed_clock is the cut's clock) is inherited and
-- listed; one made after the next event is not.
begin;
\ir ../helpers.psql
select plan(4);

select pg_temp.record_steps('tap-lfc', 1);
select pg_temp.completed('tap-lfc', 'at-cut', 't', '"at"');
select pg_temp.record_steps('tap-lfc', 1);
select pg_temp.completed('tap-lfc', 'after-cut', 't', '"after"');
select actae.fork_channel('tap-lfc', 1, 'tap-lfc-fork');

select is(
    (select completed_clock from actae.executions
     where channel_id = 'tap-lfc' and key_name = 'at-cut'),
    (select lineage_clocks[array_length(lineage_clocks, 1)] from actae.channels
     where channel_id = 'tap-lfc-fork'),
    'the completion''s clock is the fork''s cut');
select results_eq(
    $$select key_name, result from actae.list_completed('tap-lfc-fork')$$,
    $$values ('at-cut'::text, '"at"'::jsonb)$$,
    'list_completed lists the completion at the cut, not the later one');
select is((select outcome from actae.claim_execution('tap-lfc-fork', 'at-cut', 't', '{}')),
    'replayed', 'as a claim replays it');
select is(pg_temp.probe_claim('tap-lfc-fork', 'after-cut'), 'claimed',
    'and claims the later one afresh');

select * from finish();
rollback;
