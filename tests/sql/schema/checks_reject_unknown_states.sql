-- The schema states its states (migration 0006): the status domain and CHECK constraints
-- reject an execution status, an operation kind or a fork tool policy that Actae does not
-- know, whoever writes the row; list_executions accepts exactly the statuses the domain
-- allows; and the in-flight set is actae._in_flight's.
begin;
\ir ../helpers.psql
select plan(14);

create temp table c as
select * from actae.claim_execution('tap-checks', 'k', 't', '{}');

select throws_ok(
    $$update actae.executions set status = 'paused' where channel_id = 'tap-checks'$$,
    '23514', null, 'an unknown execution status is rejected by the table'
);
select lives_ok(
    $$update actae.executions set status = 'cancelled' where channel_id = 'tap-checks'$$,
    'cancelled is a status'
);
select throws_ok(
    $$insert into actae.operations (channel_id, operation_id, kind, content_sha256, recorded_at)
      values ('tap-checks', 'op', 'delete_everything', '', now())$$,
    '23514', null, 'an unknown operation kind is rejected by the table'
);
select throws_ok(
    $$update actae.channels set tool_policies = '{"charge": "maybe"}'
      where channel_id = 'tap-checks'$$,
    '23514', null, 'an unknown tool policy is rejected by the table'
);
select throws_ok(
    $$update actae.channels set tool_policies = '{"charge": 1}' where channel_id = 'tap-checks'$$,
    '23514', null, 'a tool policy that is not a string is rejected'
);
select throws_ok(
    $$update actae.channels set tool_policies = '["live"]' where channel_id = 'tap-checks'$$,
    '23514', null, 'tool policies that are not an object are rejected'
);
select lives_ok(
    $$update actae.channels
      set tool_policies = '{"charge": "block", "search": "live", "quote": "replay"}'
      where channel_id = 'tap-checks'$$,
    'replay, live and block are policies'
);
select is(
    pg_temp.error_of($$select actae.fork_channel('tap-checks', 0, null, null,
        '{"charge": "maybe"}')$$) ->> 'sqlstate',
    'AC400', 'fork_channel rejects an unknown policy with AC400, by the same rule'
);

-- list_executions takes exactly the statuses the domain allows.
select is(
    (select string_agg(s.status, ', ') from unnest(array[
        'claimed', 'in_progress', 'completed', 'failed', 'cancelled'
    ]) as s (status)
     where pg_temp.error_of(format(
         'select actae.list_executions(null, %L)', s.status)) is not null),
    null, 'list_executions accepts every status'
);
select is(
    pg_temp.error_of($$select actae.list_executions(null, 'paused')$$) ->> 'sqlstate',
    'AC400', 'list_executions rejects an unknown status'
);
select is(
    (select count(*) from actae.list_executions('tap-checks', 'cancelled')), 1::bigint,
    'list_executions finds cancelled executions'
);
select ok(
    (select pg_get_constraintdef(k.oid) from pg_constraint as k
     where k.contypid = 'actae.execution_status'::regtype)
    ~ 'claimed.*in_progress.*completed.*failed.*cancelled',
    'the status domain names the five statuses'
);

select results_eq(
    $$select s, actae._in_flight(s) from unnest(array[
        'claimed', 'in_progress', 'completed', 'failed', 'cancelled'
    ]) with ordinality as a (s, n) order by n$$,
    $$values ('claimed', true), ('in_progress', true), ('completed', false),
        ('failed', false), ('cancelled', false)$$,
    'in flight: claimed and in_progress only'
);
-- The audit views spell the set out (auditors cannot call private helpers): they agree.
select actae.claim_execution('tap-checks', 'live', 't', '{}');
select pg_temp.expire(execution_id) from actae.claim_execution('tap-checks', 'lapsed', 't', '{}');
select is(
    (select string_agg(l.key_name || '=' || l.lease_state, ', ' order by l.key_name)
     from actae.execution_leases as l
     join actae.executions as e using (execution_id)
     where l.channel_id = 'tap-checks'
       and (l.lease_remaining is not null) is distinct from actae._in_flight(e.status)),
    null, 'execution_leases has a lease_remaining exactly for in-flight executions'
);

select * from finish();
rollback;
