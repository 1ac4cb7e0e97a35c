-- 0002_operations: what operators need after the agents are written — closing channels,
-- key lifetimes, the actae_operator role and the audit views.
--
-- * channels.closed_at: set by close_channel when a run is over. A closed channel that has
--   been quiet for purge's older_than (and is no live fork's ancestor) is deleted whole.
-- * channels.key_ttl: how long a finished execution key of the channel keeps replaying.
--   Past it, purge may delete the key and a later claim of it is a new operation. Null (the
--   default) means keys live as long as the channel. The lifetime is per channel, not per
--   claim, so claim_execution keeps the six arguments of the contract and its hot path.
-- * actae_operator: may do what actae_agent and actae_auditor do, and also cancel
--   executions and purge; the agent role cannot call those two (sql/90_grants.sql).
-- The partial indexes cover only channels that are closed, have a key lifetime, or are
-- forks, so they stay small and never change when an append bumps a channel's head.

do $roles$
begin
    if not exists (select 1 from pg_catalog.pg_roles where rolname = 'actae_operator') then
        create role actae_operator nologin;
    end if;
    grant actae_agent, actae_auditor to actae_operator;
end;
$roles$;

grant usage on schema actae to actae_operator;

alter table actae.channels
add column closed_at timestamptz,
add column key_ttl interval;

-- The channel row API functions return gains the two new columns.
alter type actae.channel_row
add attribute closed_at timestamptz,
add attribute key_ttl interval;

-- What one purge call deleted; more = true when it stopped at its batch size.
create type actae.purge_result as (
    executions bigint,
    events bigint,
    snapshots bigint,
    operations bigint,
    channels bigint,
    more boolean
);
alter type actae.purge_result owner to actae_owner;

create index channels_closed_at_idx on actae.channels (closed_at)
where closed_at is not null;

create index channels_key_ttl_idx on actae.channels (channel_id)
where key_ttl is not null;

create index channels_forks_idx on actae.channels (channel_id)
where parent_channel_id is not null;

-- actae.execution_leases — every execution with the state of its lease right now:
-- live (an owner holds it), expired (claimed/in_progress but the lease lapsed: the owner is
-- probably gone and the next claim reclaims it), retry (failed retryably, nobody owns it)
-- or released (completed, or failed for good). No claim tokens.
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
        when e.status = 'completed' or (e.status = 'failed' and not e.retryable)
            then 'released'
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

-- actae.channel_lineage — one row per (channel, ancestor), found by walking
-- parent_channel_id recursively: generation 1 is the parent. inherited_cursor is the last
-- event of the ancestor the channel sees (the smallest fork cursor on the way), so it must
-- agree with channels.lineage_ids / lineage_cursors (pgTAP checks that it does).
create view actae.channel_lineage as
with recursive walk (
    channel_id, ancestor_channel_id, generation, inherited_cursor
) as (
    select
        c.channel_id,
        c.parent_channel_id,
        1,
        c.fork_cursor
    from actae.channels as c
    where c.parent_channel_id is not null
    union all
    select
        w.channel_id,
        p.parent_channel_id,
        w.generation + 1,
        least(w.inherited_cursor, p.fork_cursor)
    from walk as w
    inner join actae.channels as p on w.ancestor_channel_id = p.channel_id
    where p.parent_channel_id is not null
)

select
    w.channel_id,
    w.ancestor_channel_id,
    w.generation,
    w.inherited_cursor
from walk as w;

-- actae.tool_stats — per tool: how many executions are in each status, cancellations,
-- attempts and the duration of the last attempt of finished executions.
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
    max(e.finished_at - e.claimed_at) as max_duration
from actae.executions as e
group by e.tool_name;

-- actae.ledger_status — one row: schema version and the health of the ledger right now.
create view actae.ledger_status as
select
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
    ) as forks
from (
    select
        count(*) as executions,
        count(*) filter (where e.status = 'claimed') as claimed,
        count(*) filter (where e.status = 'in_progress') as in_progress,
        count(*) filter (where e.status = 'completed') as completed,
        count(*) filter (where e.status = 'failed') as failed,
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

-- ledger_status reads the migrate runner's bookkeeping as the view owner.
grant select on actae.schema_migrations to actae_owner;
alter view actae.execution_leases owner to actae_owner;
alter view actae.channel_lineage owner to actae_owner;
alter view actae.tool_stats owner to actae_owner;
alter view actae.ledger_status owner to actae_owner;
grant select on actae.execution_leases, actae.channel_lineage, actae.tool_stats,
actae.ledger_status to actae_auditor;
