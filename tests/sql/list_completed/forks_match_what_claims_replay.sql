-- In a fork (and a fork of a fork), list_completed returns exactly the keys a claim would
-- replay, each as get_execution shows it: inherited completions from before each cut (the
-- nearest ancestor's row), not those after it; its own completed rows; tools whose fork
-- policy is live are not inherited, blocked tools' completed rows are; an own in-flight
-- claim is not listed. A key inherited for one tool stays that tool's in every fork below.
begin;
\ir ../helpers.psql
select plan(6);

-- root: k1 (plain), k2 (tool live_t), k3 (tool block_t), k4 completed after the first fork
select pg_temp.completed('tap-lf', 'k1', 't', '"root-k1"');
select pg_temp.completed('tap-lf', 'k2', 'live_t', '"root-k2"');
select pg_temp.completed('tap-lf', 'k3', 'block_t', '"root-k3"');
select pg_temp.record_steps('tap-lf', 1);
select actae.fork_channel('tap-lf', 1, 'tap-lf-child', null,
    '{"live_t": "live", "block_t": "block"}');
select pg_temp.completed('tap-lf', 'k4', 't', '"root-k4"');
-- child: its own k5, its own live claim of k1, then a grandchild at its head
select pg_temp.completed('tap-lf-child', 'k5', 't', '"child-k5"');
select pg_temp.completed('tap-lf-child', 'k2', 'live_t', '"child-k2"');
select outcome from actae.claim_execution('tap-lf-child', 'k6', 't', '{}');
select pg_temp.record_steps('tap-lf-child', 1);
select actae.fork_channel('tap-lf-child', 2, 'tap-lf-grand');

select results_eq(
    $$select key_name, result from actae.list_completed('tap-lf-child')$$,
    $$values ('k1'::text, '"root-k1"'::jsonb), ('k2', '"child-k2"'), ('k3', '"root-k3"'),
        ('k5', '"child-k5"')$$,
    'child: own completions (k2 ran live), inherited k1 and block_t''s k3; not live_t''s '
    'root row, not k4 completed after the cut, not its own in-flight k6');
select results_eq(
    $$select key_name, result from actae.list_completed('tap-lf-grand')$$,
    $$values ('k1'::text, '"root-k1"'::jsonb), ('k3', '"root-k3"'), ('k5', '"child-k5"')$$,
    'grandchild: each ancestor''s rows from before its cut; live_t (a policy the fork '
    'inherits) is not inherited, not even the child''s own k2');

-- The oracle: a claim of each key replays exactly when list_completed lists it.
create temp table keys as select 'k' || g as k from generate_series(1, 6) as g;
select set_eq(
    $$select key_name from actae.list_completed('tap-lf-child')$$,
    $$select k from keys where pg_temp.probe_claim('tap-lf-child', k,
        (select e.tool_name from actae.executions as e
            where e.channel_id in ('tap-lf', 'tap-lf-child') and e.key_name = k
            limit 1)) = 'replayed'$$,
    'child: listed keys are exactly the keys a claim replays');
select results_eq(
    $$select to_jsonb(l) from actae.list_completed('tap-lf-grand') as l order by key_name$$,
    $$select to_jsonb(g) from actae.list_completed('tap-lf-grand') as l
      cross join lateral actae.get_execution('tap-lf-grand', l.key_name) as g
      order by l.key_name$$,
    'grandchild: each row is what get_execution returns');

-- root: k with tool a; a fork running tool b live cannot take k over for tool b (AC409:
-- claim_execution/fork_live_policy_keeps_key_identity.sql), so a fork of it still lists
-- the root's k, as a claim of tool a replays it.
select pg_temp.completed('tap-lfn', 'k', 'a', '"root-a"');
select pg_temp.record_steps('tap-lfn', 1);
select actae.fork_channel('tap-lfn', 1, 'tap-lfn-mid', null, '{"b": "live"}');
select throws_ok(
    $$select * from actae.claim_execution('tap-lfn-mid', 'k', 'b', '{}')$$, 'AC409', null,
    'a tool run live cannot take over a key inherited for another tool');
select pg_temp.record_steps('tap-lfn-mid', 1);
select actae.fork_channel('tap-lfn-mid', 2, 'tap-lfn-grand');
select results_eq(
    $$select key_name, result from actae.list_completed('tap-lfn-grand')$$,
    $$values ('k'::text, '"root-a"'::jsonb)$$,
    'the grandchild lists the root''s k of tool a');

select * from finish();
rollback;
