-- Audit views for actae_auditor: execution_leases (lease state right now), channel_lineage
-- (recursive walk that must agree with the stored lineage), tool_stats and ledger_status.
begin;
\ir ../helpers.psql
select plan(17);

-- execution_leases: one execution in each lease state.
select pg_temp.completed('tap-views', 'done', 'tap-tool-a', '{"ok": true}');
select actae.claim_execution('tap-views', 'live', 'tap-tool-a', '{}', null, 600);
select actae.claim_execution('tap-views', 'lapsed', 'tap-tool-a', '{}');
select pg_temp.expire(execution_id) from actae.executions
where channel_id = 'tap-views' and key_name = 'lapsed';
create temp table retry as
select * from actae.claim_execution('tap-views', 'retry', 'tap-tool-b', '{}');
select actae.fail_execution(execution_id, 'timeout', claim_token, true) from retry;
select set_eq(
    $$ select key_name, lease_state from actae.execution_leases where channel_id = 'tap-views' $$,
    $$ values ('done', 'released'), ('live', 'live'), ('lapsed', 'expired'),
        ('retry', 'retry') $$,
    'execution_leases: released, live, expired and retry'
);
select cmp_ok(
    (select lease_remaining from actae.execution_leases
     where channel_id = 'tap-views' and key_name = 'live'),
    '>', interval '9 minutes', 'lease_remaining of a live lease'
);
select cmp_ok(
    (select lease_remaining from actae.execution_leases
     where channel_id = 'tap-views' and key_name = 'lapsed'),
    '<', interval '0', 'lease_remaining of a lapsed lease is negative'
);
select hasnt_column('actae', 'execution_leases', 'claim_token', 'no claim tokens in the view');

-- tool_stats counts per tool.
select is(
    (select row(executions, claimed, in_progress, completed, failed, attempts)::text
     from actae.tool_stats where tool_name = 'tap-tool-a'),
    '(3,2,0,1,0,3)', 'tool_stats counts executions by status and attempts'
);
select is(
    (select failed from actae.tool_stats where tool_name = 'tap-tool-b'), 1::bigint,
    'tool_stats counts failures'
);
select ok(
    (select max_duration is not null and p50_seconds >= 0
     from actae.tool_stats where tool_name = 'tap-tool-a'),
    'tool_stats has durations of finished executions'
);

-- channel_lineage: a fork of a fork of a fork, walked recursively.
select pg_temp.record_steps('tap-lin-root', 5);
select actae.fork_channel('tap-lin-root', 4, 'tap-lin-a');
select pg_temp.record_steps('tap-lin-a', 2);
select actae.fork_channel('tap-lin-a', 6, 'tap-lin-b');
select actae.fork_channel('tap-lin-b', 3, 'tap-lin-c');
select set_eq(
    $$ select ancestor_channel_id, generation, inherited_cursor from actae.channel_lineage
       where channel_id = 'tap-lin-b' $$,
    $$ values ('tap-lin-a', 1, 6::bigint), ('tap-lin-root', 2, 4::bigint) $$,
    'lineage of a fork of a fork: parent then grandparent, with the cursors it sees'
);
select set_eq(
    $$ select ancestor_channel_id, generation, inherited_cursor from actae.channel_lineage
       where channel_id = 'tap-lin-c' $$,
    $$ values ('tap-lin-b', 1, 3::bigint), ('tap-lin-a', 2, 3::bigint),
        ('tap-lin-root', 3, 3::bigint) $$,
    'a cut below an ancestor''s fork point limits what it inherits from every ancestor'
);
select is_empty(
    $$ select channel_id from actae.channel_lineage where channel_id = 'tap-lin-root' $$,
    'a root channel has no lineage rows'
);
-- The recursive walk agrees with the stored lineage arrays wherever the arrays keep an
-- ancestor (a cut inside an ancestor's prefix drops the ancestors after it).
select is_empty(
    $$ select c.channel_id, s.id
       from actae.channels as c
       cross join lateral unnest(c.lineage_ids, c.lineage_cursors) as s (id, max_cursor)
       where c.channel_id like 'tap-lin-%'
           and not exists (
               select 1 from actae.channel_lineage as l
               where l.channel_id = c.channel_id and l.ancestor_channel_id = s.id
                   and (l.inherited_cursor = s.max_cursor or s.id = c.parent_channel_id
                       and l.inherited_cursor = c.fork_cursor)
           ) $$,
    'every stored lineage entry appears in channel_lineage with the same cursor'
);

-- ledger_status.
select is(
    (select schema_version from actae.ledger_status),
    (select max(version) from actae.schema_migrations), 'ledger_status has the schema version'
);
select cmp_ok((select expired_leases from actae.ledger_status), '>=', 1::bigint,
    'ledger_status counts expired leases');
select cmp_ok((select forks from actae.ledger_status), '>=', 3::bigint,
    'ledger_status counts forks');

-- Who may read the views.
set local role actae_auditor;
select lives_ok(
    $$ select * from actae.execution_leases, actae.channel_lineage, actae.tool_stats,
       actae.ledger_status limit 1 $$,
    'actae_auditor reads every audit view'
);
reset role;
set local role actae_agent;
select throws_ok($$ select * from actae.execution_leases $$, '42501', null,
    'actae_agent cannot read the audit views (it has no table access at all)');
reset role;
set local role actae_operator;
select lives_ok($$ select * from actae.ledger_status $$, 'actae_operator reads them');
reset role;

select * from finish();
rollback;
