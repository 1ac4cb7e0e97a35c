-- 0006_states_and_clock: the states the schema enforces, cancelled as a status of its own,
-- and one database clock.
--
-- * actae._now() is the clock every function reads (instead of clock_timestamp()). It is
--   a one-line SQL function, inlined into the callers' expressions, so it costs nothing on
--   the hot path. Tests move it with actae._set_test_clock (sql/00_helpers.sql), which only
--   its owner (actae_owner) or a superuser can run: it redefines this function, and nobody
--   else may. channels.created_at defaults to it too. It is created here, not in sql/,
--   because that column default depends on it.
-- * executions.status gains 'cancelled': an execution stopped by actae.cancel_execution.
--   Until now a cancellation was stored as status 'failed', not retryable, with an error
--   text starting 'cancelled:'; those rows become 'cancelled' (error text kept). A claim of
--   a cancelled execution still returns outcome 'failed' (SPEC section 2: do not call the
--   tool, surface the stored error); its row says status 'cancelled'.
-- * The schema names its states in domains: executions.status is an execution_status
--   (five values), operations.kind an operation_kind, channels.tool_policies a
--   tool_policies object (values replay, live or block). actae._tool_policies_valid is
--   created here because that domain's check calls it; fork_channel validates its argument
--   with the same function.
-- * The audit views learn the cancelled status (a released lease, a count of its own).

create or replace function actae._now() returns timestamptz
language sql
volatile
as $$
    select pg_catalog.clock_timestamp();
$$;

-- actae._tool_policies_valid — true when p_policies is a JSON object whose every value is
-- "replay", "live" or "block".
create or replace function actae._tool_policies_valid(
    p_policies jsonb
) returns boolean
language sql
immutable
as $$
    select pg_catalog.jsonb_typeof(p_policies) = 'object'
        and not pg_catalog.jsonb_path_exists(
            p_policies,
            '$.* ? (@.type() != "string" || !(@ == "replay" || @ == "live" || @ == "block"))'
        );
$$;

alter function actae._now() owner to actae_owner;
alter function actae._tool_policies_valid(jsonb) owner to actae_owner;

alter table actae.channels alter column created_at set default actae._now();

update actae.executions set status = 'cancelled'
where status = 'failed' and retryable is false and error like 'cancelled:%';

-- The states are domains rather than table CHECK constraints: a table CHECK is prepared
-- again by every statement that writes the table (measured: about 17 us more per claim +
-- complete, and every append updates its channel row), while a domain's check is cached
-- and runs only where a value is assigned. The status column changes type under the audit
-- views, so they are dropped first and created again below (their grants with them).
drop view actae.execution_leases;
drop view actae.tool_stats;
drop view actae.ledger_status;

create domain actae.execution_status as text
constraint execution_status_check check (
    value in ('claimed', 'in_progress', 'completed', 'failed', 'cancelled')
);
create domain actae.operation_kind as text
constraint operation_kind_check check (
    value in ('record_event', 'transition_state', 'fork_channel')
);
create domain actae.tool_policies as jsonb
constraint tool_policies_check check (actae._tool_policies_valid(value));
alter domain actae.execution_status owner to actae_owner;
alter domain actae.operation_kind owner to actae_owner;
alter domain actae.tool_policies owner to actae_owner;

alter table actae.executions alter column status type actae.execution_status;
alter table actae.operations alter column kind type actae.operation_kind;
alter table actae.channels alter column tool_policies type actae.tool_policies;


-- Views read by actae_auditor cannot call private helpers (a view's functions run with the
-- reader's rights), so they spell the in-flight set ('claimed', 'in_progress') and read
-- clock_timestamp(); tests/sql/schema/checks_reject_unknown_states.sql checks they agree with
-- actae._in_flight.
create view actae.execution_leases as
select
    e.execution_id,
    e.channel_id,
    e.key_name,
    e.tool_name,
    e.status,
    e.attempt,
    e.fence,
    e.ambiguous,
    e.lease_seconds,
    e.lease_expires_at,
    e.created_at,
    e.claimed_at,
    e.heartbeat_at,
    e.finished_at,
    e.error,
    e.retryable,
    e.cancel_requested_at,
    e.cancel_reason,
    case
        when e.status in ('completed', 'cancelled') then 'released'
        when e.status = 'failed' and not e.retryable then 'released'
        when e.status = 'failed' then 'retry'
        when e.lease_expires_at > clock_timestamp() then 'live'
        else 'expired'
    end as lease_state,
    case
        when e.status in ('claimed', 'in_progress')
            then e.lease_expires_at - clock_timestamp()
    end as lease_remaining,
    e.finished_at - e.claimed_at as last_attempt_duration
from actae.executions as e;

create view actae.tool_stats as
select
    e.tool_name,
    count(*) as executions,
    count(*) filter (where e.status = 'claimed') as claimed,
    count(*) filter (where e.status = 'in_progress') as in_progress,
    count(*) filter (where e.status = 'completed') as completed,
    count(*) filter (where e.status = 'failed') as failed,
    count(*) filter (where e.cancel_requested_at is not null) as cancel_requested,
    count(*) filter (where e.ambiguous) as ambiguous,
    sum(e.attempt) as attempts,
    avg(e.finished_at - e.claimed_at) as avg_duration,
    percentile_cont(0.5) within group (
        order by extract(epoch from e.finished_at - e.claimed_at)
    ) as p50_seconds,
    percentile_cont(0.95) within group (
        order by extract(epoch from e.finished_at - e.claimed_at)
    ) as p95_seconds,
    max(e.finished_at - e.claimed_at) as max_duration,
    count(*) filter (where e.status = 'cancelled') as cancelled
from actae.executions as e
group by e.tool_name;

-- New columns go last, so readers that select the old ones by position still work.
create view actae.ledger_status as
select  -- noqa: ST06
    s.executions,
    s.claimed,
    s.in_progress,
    s.completed,
    s.failed,
    s.expired_leases,
    s.oldest_in_flight_claimed_at,
    s.oldest_expired_lease_at,
    (select max(m.version) from actae.schema_migrations as m) as schema_version,
    (select count(*) from actae.channels) as channels,
    (
        select count(*) from actae.channels as c
        where c.closed_at is not null
    ) as closed_channels,
    (
        select count(*) from actae.channels as c
        where c.parent_channel_id is not null
    ) as forks,
    s.cancelled
from (
    select
        count(*) as executions,
        count(*) filter (where e.status = 'claimed') as claimed,
        count(*) filter (where e.status = 'in_progress') as in_progress,
        count(*) filter (where e.status = 'completed') as completed,
        count(*) filter (where e.status = 'failed') as failed,
        count(*) filter (where e.status = 'cancelled') as cancelled,
        count(*) filter (
            where e.status in ('claimed', 'in_progress')
            and e.lease_expires_at <= clock_timestamp()
        ) as expired_leases,
        min(e.claimed_at) filter (
            where e.status in ('claimed', 'in_progress')
        ) as oldest_in_flight_claimed_at,
        min(e.lease_expires_at) filter (
            where e.status in ('claimed', 'in_progress')
            and e.lease_expires_at <= clock_timestamp()
        ) as oldest_expired_lease_at
    from actae.executions as e
) as s;

alter view actae.execution_leases owner to actae_owner;
alter view actae.tool_stats owner to actae_owner;
alter view actae.ledger_status owner to actae_owner;
grant select on actae.execution_leases, actae.tool_stats, actae.ledger_status
to actae_auditor;
