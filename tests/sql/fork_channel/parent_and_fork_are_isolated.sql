-- After the fork, nothing recorded in the source is visible in the fork and nothing
-- recorded in the fork is visible in the source: events, states and executions.
begin;
\ir ../helpers.psql
select plan(8);

select pg_temp.record_steps('tap-iso', 2);
select actae.fork_channel('tap-iso', 2, 'tap-iso-fork');
select actae.transition_state('tap-iso', 'parent', '{"p": 3}', '{"who": "parent"}', 0);
select actae.transition_state('tap-iso-fork', 'fork', '{"f": 3}', '{"who": "fork"}', 0);
select pg_temp.completed('tap-iso', 'parent-key', 't', '"parent"');
select pg_temp.completed('tap-iso-fork', 'fork-key', 't', '"fork"');

select results_eq($$select cursor, event_type from actae.list_events('tap-iso', 2)$$,
    $$values (3::bigint, 'parent'::text)$$, 'the parent sees its own event 3');
select results_eq($$select cursor, event_type from actae.list_events('tap-iso-fork', 2)$$,
    $$values (3::bigint, 'fork'::text)$$, 'the fork sees its own event 3');
select is((select state from actae.get_state('tap-iso')), '{"who": "parent"}'::jsonb,
    'the parent''s state is its own');
select is((select state from actae.get_state('tap-iso-fork')), '{"who": "fork"}'::jsonb,
    'the fork''s state is its own');
select throws_ok($$select actae.get_execution('tap-iso-fork', 'parent-key')$$, 'AC404', null,
    'the parent''s later completion is not visible in the fork');
select throws_ok($$select actae.get_execution('tap-iso', 'fork-key')$$, 'AC404', null,
    'the fork''s completion is not visible in the parent');
select is(
    (select outcome from actae.claim_execution('tap-iso', 'fork-key', 't', '{}')), 'claimed',
    'the parent claims the fork''s key afresh');
select isnt(
    (select chain_sha256 from actae.list_events('tap-iso') where cursor = 3),
    (select chain_sha256 from actae.list_events('tap-iso-fork') where cursor = 3),
    'the two histories diverge in their hash chains at cursor 3');

select * from finish();
rollback;
