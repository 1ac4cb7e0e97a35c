-- Tool executions completed before the cut replay in the forked thread; one completed
-- after it does not; tool_policies apply as for fork_channel.
begin;
\ir ../helpers.psql
\ir ../langgraph_helpers.psql
select plan(3);

select pg_temp.lg_put('tap-lg-ft', '', 'cp-1');
select pg_temp.completed('langgraph:tap-lg-ft', 'charge-1', 'charge', '"ch_1"');
select pg_temp.lg_put('tap-lg-ft', '', 'cp-2', 'cp-1');
select pg_temp.completed('langgraph:tap-lg-ft', 'charge-2', 'charge', '"ch_2"');
select actae.langgraph_fork_thread('tap-lg-ft', '', 'cp-1', 'tap-lg-ft2', '{"search": "live"}');
select is(pg_temp.probe_claim(pg_temp.lg_channel('tap-lg-ft2'), 'charge-1', 'charge'),
    'replayed', 'the charge of cp-1''s step replays');
select is(pg_temp.probe_claim(pg_temp.lg_channel('tap-lg-ft2'), 'charge-2', 'charge'),
    'claimed', 'a charge after the next checkpoint is not inherited');
select is((select tool_policies from actae.get_channel(pg_temp.lg_channel('tap-lg-ft2'))),
    '{"search": "live"}'::jsonb, 'the tool policies are the fork''s');

select * from finish();
rollback;
