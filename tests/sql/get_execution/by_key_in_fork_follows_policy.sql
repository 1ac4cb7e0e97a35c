-- In a fork, get_execution(channel_id, key_name) answers what a claim would see: the
-- completed row inherited from the prefix under the default replay policy, and nothing
-- (AC404) for a tool whose fork policy is live, because a claim there runs it afresh.
begin;
\ir ../helpers.psql
select plan(4);

select pg_temp.completed('tap-getfork', 'search:1', 'web_search', '{"hits": 3}');
select pg_temp.completed('tap-getfork', 'charge:1', 'charge', '{"charge_id": "ch_1"}');
select pg_temp.record_steps('tap-getfork', 2);
select actae.fork_channel('tap-getfork', 2, 'tap-getfork-live', null,
    '{"web_search": "live"}');

select is((select result from actae.get_execution('tap-getfork-live', 'charge:1')),
    '{"charge_id": "ch_1"}'::jsonb, 'an inherited replayable result is visible in the fork');
select is((select channel_id from actae.get_execution('tap-getfork-live', 'charge:1')),
    'tap-getfork', 'the inherited row says where the call ran');
select throws_ok($$select actae.get_execution('tap-getfork-live', 'search:1')$$, 'AC404', null,
    'a live tool''s inherited result is not what the fork sees');
select is((select outcome from actae.claim_execution('tap-getfork-live', 'search:1',
    'web_search', '{}')), 'claimed', 'and a claim in the fork indeed runs it afresh');

select * from finish();
rollback;
