-- 0001_ledger: Actae's tables, result types and roles.
--
-- Tables are not a public interface: callers use the functions in sql/ (role actae_agent)
-- or read (role actae_auditor). Every primary key and unique constraint leads with
-- channel_id so the schema can be distributed by channel (SPEC section 6).

do $roles$
begin
    if not exists (select 1 from pg_catalog.pg_roles where rolname = 'actae_owner') then
        create role actae_owner nologin;
    end if;
    if not exists (select 1 from pg_catalog.pg_roles where rolname = 'actae_agent') then
        create role actae_agent nologin;
    end if;
    if not exists (select 1 from pg_catalog.pg_roles where rolname = 'actae_auditor') then
        create role actae_auditor nologin;
    end if;
end;
$roles$;

create schema if not exists actae;
grant usage on schema actae to actae_owner, actae_agent, actae_auditor;

-- One row per channel (agent run). head_cursor, head_chain and state_version are the
-- tip of the event log and of the state; clock counts appends and forks so a completion
-- can be ordered against them exactly (see fork_channel). A fork stores its ancestry
-- root first: lineage_ids[i] supplies events up to lineage_cursors[i] and executions
-- completed up to its clock lineage_clocks[i].
create table actae.channels (
    channel_id text primary key,
    head_cursor bigint not null default 0,
    head_chain text not null default '',
    state_version bigint not null default 0,
    clock bigint not null default 0,
    parent_channel_id text,
    fork_cursor bigint,
    fork_prefix_sha256 text,
    lineage_ids text[] not null default '{}',
    lineage_cursors bigint[] not null default '{}',
    lineage_clocks bigint[] not null default '{}',
    tool_policies jsonb,
    metadata jsonb not null default '{}',
    created_at timestamptz not null default clock_timestamp()
);

-- The ordered, append-only event log of a channel. cursor is gapless per channel.
create table actae.events (
    channel_id text not null,
    cursor bigint not null,
    event_type text not null,
    payload jsonb not null,
    operation_id text,
    clock bigint not null,
    chain_sha256 text not null,
    recorded_at timestamptz not null,
    primary key (channel_id, cursor)
);

-- State snapshots: version n was written together with the event at cursor.
create table actae.snapshots (
    channel_id text not null,
    version bigint not null,
    cursor bigint not null,
    state jsonb not null,
    recorded_at timestamptz not null,
    primary key (channel_id, version),
    unique (channel_id, cursor)
);

-- operation_id namespace of a channel, shared by record_event, transition_state and
-- fork_channel. content_sha256 decides "same request" (SPEC 3a).
create table actae.operations (
    channel_id text not null,
    operation_id text not null,
    kind text not null,
    content_sha256 text not null,
    cursor bigint,
    version bigint,
    target_channel_id text,
    recorded_at timestamptz not null,
    primary key (channel_id, operation_id)
);

-- The tool-execution ledger: one row per (channel_id, key_name).
-- status and lease columns stay unindexed so lease and completion updates are HOT.
create table actae.executions (
    channel_id text not null,
    key_name text not null,
    execution_id uuid not null,
    tool_name text not null,
    params jsonb not null,
    dedup_fields text[],
    fingerprint text not null,
    status text not null,
    claim_token uuid not null,
    fence bigint not null,
    attempt integer not null,
    lease_seconds integer not null,
    lease_expires_at timestamptz not null,
    result jsonb,
    error text,
    retryable boolean,
    ambiguous boolean not null default false,
    completed_clock bigint,
    cancel_requested_at timestamptz,
    cancel_reason text,
    created_at timestamptz not null,
    claimed_at timestamptz not null,
    heartbeat_at timestamptz,
    finished_at timestamptz,
    primary key (channel_id, key_name)
);
-- Lookup by id for heartbeat/complete/fail. Not a unique constraint: ids are random
-- uuids, and a distributed table cannot enforce uniqueness without channel_id.
create index executions_execution_id_idx on actae.executions (execution_id);

alter table actae.channels owner to actae_owner;
alter table actae.events owner to actae_owner;
alter table actae.snapshots owner to actae_owner;
alter table actae.operations owner to actae_owner;
alter table actae.executions owner to actae_owner;
grant select on all tables in schema actae to actae_auditor;

-- Row shapes returned by the API functions.
create type actae.execution_row as (
    outcome text,
    execution_id uuid,
    channel_id text,
    key_name text,
    tool_name text,
    status text,
    claim_token uuid,
    fence bigint,
    attempt integer,
    lease_expires_at timestamptz,
    params jsonb,
    fingerprint text,
    result jsonb,
    error text,
    ambiguous boolean,
    retryable boolean,
    dedup_fields text [],
    lease_seconds integer,
    created_at timestamptz,
    claimed_at timestamptz,
    heartbeat_at timestamptz,
    finished_at timestamptz,
    cancel_requested boolean,
    cancel_reason text
);

create type actae.channel_row as (
    channel_id text,
    head_cursor bigint,
    state_version bigint,
    parent_channel_id text,
    fork_cursor bigint,
    created_at timestamptz,
    lineage text [],
    head_chain_sha256 text,
    fork_prefix_sha256 text,
    tool_policies jsonb,
    metadata jsonb
);

create type actae.event_row as (
    cursor bigint,
    event_type text,
    payload jsonb,
    operation_id text,
    recorded_at timestamptz,
    chain_sha256 text
);

create type actae.state_row as (
    version bigint,
    cursor bigint,
    state jsonb
);

create type actae.record_result as (
    cursor bigint,
    outcome text,
    recorded_at timestamptz
);

create type actae.transition_result as (
    cursor bigint,
    version bigint,
    outcome text,
    recorded_at timestamptz
);

create type actae.fork_result as (
    channel_id text,
    source_channel_id text,
    fork_cursor bigint,
    version bigint,
    prefix_sha256 text,
    tool_policies jsonb,
    outcome text
);

alter type actae.execution_row owner to actae_owner;
alter type actae.channel_row owner to actae_owner;
alter type actae.event_row owner to actae_owner;
alter type actae.state_row owner to actae_owner;
alter type actae.record_result owner to actae_owner;
alter type actae.transition_result owner to actae_owner;
alter type actae.fork_result owner to actae_owner;

-- Functions are created by sql/ on every migrate; none is executable by PUBLIC.
alter default privileges in schema actae revoke execute on functions from public;
