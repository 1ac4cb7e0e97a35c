-- A fork taken at the source's head inherits what was completed before the fork; an
-- execution the source completes after the fork was taken is not inherited, even though
-- no event was recorded in between.
begin;
\ir ../helpers.psql
select plan(3);

select actae.record_event('tap-head', 'e1', '{}');
select pg_temp.completed('tap-head', 'before', 't', '"before"');
create temp table open as select * from actae.claim_execution('tap-head', 'after', 't', '{}');
select actae.fork_channel('tap-head', 1, 'tap-head-fork');
select actae.complete_execution(execution_id, claim_token, '"after"') from open;

select is((select outcome from actae.claim_execution('tap-head-fork', 'before', 't', '{}')),
    'replayed', 'completed before the fork: inherited');
select is((select outcome from actae.claim_execution('tap-head-fork', 'after', 't', '{}')),
    'claimed', 'completed after the fork at the head: not inherited, claimed fresh');
select is((select outcome from actae.claim_execution('tap-head', 'after', 't', '{}')),
    'replayed', 'while the source itself replays it');

select * from finish();
rollback;
