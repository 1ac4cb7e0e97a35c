-- purge and key lifetimes: a completion a live fork inherits is kept past key_ttl even when
-- it completed at exactly the fork's cut (completed_clock = the fork's lineage clock: it
-- completed after the last event and before the fork at the head), so the fork still
-- replays it; a completion after the fork was made is not inherited and expires.
begin;
\ir ../helpers.psql
select plan(4);

select actae.set_key_ttl('tap-pkf', interval '1 hour');
select pg_temp.record_steps('tap-pkf', 1);
select pg_temp.completed('tap-pkf', 'paid', 'charge', '{"id": "ch_1"}');
select actae.fork_channel('tap-pkf', 1, 'tap-pkf-fork');
select pg_temp.completed('tap-pkf', 'later', 'charge', '{"id": "ch_2"}');
select is(
    (select completed_clock from actae.executions where channel_id = 'tap-pkf' and key_name = 'paid'),
    (select lineage_clocks[1] from actae.channels where channel_id = 'tap-pkf-fork'),
    'the completion''s clock is the fork''s lineage clock');
update actae.executions set finished_at = finished_at - interval '2 hours'
where channel_id = 'tap-pkf';
select actae.purge(interval '100 years', 100000);
select set_eq($$select key_name from actae.executions where channel_id = 'tap-pkf'$$,
    array['paid'], 'the inherited key is kept, the later one is deleted');
select is((select outcome from actae.claim_execution('tap-pkf-fork', 'paid', 'charge', '{}')),
    'replayed', 'the fork still replays it');
select is((select outcome from actae.claim_execution('tap-pkf-fork', 'later', 'charge', '{}')),
    'claimed', 'the later key was never the fork''s');

select * from finish();
rollback;
