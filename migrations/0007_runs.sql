-- 0007_runs: runs, agents that finish themselves (SPEC section 7).
--
-- A run is a channel with a job attached: the agent, its input and who executes it now.
-- The primary key is the channel, so the table distributes by channel_id like the others.
-- The CHECK constraints are the state machine: which statuses exist and which columns each
-- one requires, so the table itself says what a valid run is.
--
-- due_at is "when a worker may claim this run": the start or retry time for queued, the
-- wake time for sleeping, the deadline for waiting (moved to now when the awaited event is
-- recorded), and the lease expiry for running (a lapsed lease makes the run claimable
-- again). It is null exactly when the run is over. One partial index on (queue, due_at)
-- therefore is the whole claim path: the oldest due run of a queue is its first entry.
create table actae.runs (
    channel_id text primary key,
    agent text not null,
    queue text not null,
    input jsonb not null,
    status text not null,
    due_at timestamptz,
    wake_reason text,
    claim_token uuid,
    worker text,
    fence bigint not null default 0,
    attempt integer not null default 0,
    failures integer not null default 0,
    max_attempts integer not null,
    lease_seconds integer,
    lease_expires_at timestamptz,
    result jsonb,
    error text,
    cancel_requested_at timestamptz,
    cancel_reason text,
    sleep_key text,
    wait_key text,
    wait_event_type text,
    created_at timestamptz not null,
    claimed_at timestamptz,
    heartbeat_at timestamptz,
    finished_at timestamptz,
    constraint runs_status_check check (
        status in (
            'queued', 'running', 'sleeping', 'waiting', 'completed', 'failed', 'cancelled'
        )
    ),
    constraint runs_wake_reason_check check (
        wake_reason in ('start', 'retry', 'timer', 'event', 'timeout', 'lease_expired')
    ),
    -- Due exactly while the run is not over.
    constraint runs_due_check check (
        (due_at is null) = (status in ('completed', 'failed', 'cancelled'))
    ),
    -- A running run has an owner and a lease; a parked or queued one has no live token.
    constraint runs_running_check check (
        status <> 'running'
        or (
            claim_token is not null and worker is not null
            and lease_expires_at is not null and lease_seconds is not null
        )
    ),
    constraint runs_parked_check check (
        status not in ('queued', 'sleeping', 'waiting')
        or (claim_token is null and lease_expires_at is null)
    ),
    constraint runs_sleeping_check check (status <> 'sleeping' or sleep_key is not null),
    constraint runs_waiting_check check (
        status <> 'waiting' or (wait_key is not null and wait_event_type is not null)
    ),
    constraint runs_completed_check check (
        (status = 'completed') = (result is not null)
    ),
    constraint runs_error_check check (
        status not in ('failed', 'cancelled') or error is not null
    ),
    constraint runs_finished_check check (
        (finished_at is not null) = (status in ('completed', 'failed', 'cancelled'))
    ),
    constraint runs_counters_check check (
        fence >= 0 and attempt >= 0 and failures between 0 and max_attempts
        and max_attempts between 1 and 1000
    )
);

create index runs_due_idx on actae.runs (queue, due_at) where due_at is not null;

-- The event type a parked (waiting) run of this channel waits for, on the channel row that
-- every append already locks: record_event/transition_state compare one column and pay
-- nothing more unless it matches. Set by wait_for_event, cleared when the event arrives.
alter table actae.channels add column wake_event_type text;

alter table actae.runs owner to actae_owner;

-- Readers never see a live claim_token (as migration 0004 does for executions).
do $grant$
declare
    v_columns text;
begin
    select string_agg(quote_ident(a.attname), ', ' order by a.attnum) into v_columns
    from pg_catalog.pg_attribute as a
    where a.attrelid = 'actae.runs'::regclass
        and a.attnum > 0 and not a.attisdropped and a.attname <> 'claim_token';
    revoke select on actae.runs from actae_auditor;
    execute format('grant select (%s) on actae.runs to actae_auditor', v_columns);
end;
$grant$;

-- Row shapes returned by the run functions.
create type actae.run_row as (
    outcome text,
    channel_id text,
    agent text,
    queue text,
    input jsonb,
    status text,
    claim_token uuid,
    worker text,
    fence bigint,
    attempt integer,
    failures integer,
    max_attempts integer,
    lease_seconds integer,
    lease_expires_at timestamptz,
    due_at timestamptz,
    wake_reason text,
    result jsonb,
    error text,
    cancel_requested boolean,
    cancel_reason text,
    sleep_key text,
    wait_key text,
    wait_event_type text,
    created_at timestamptz,
    claimed_at timestamptz,
    heartbeat_at timestamptz,
    finished_at timestamptz
);

-- sleep_run and wait_for_event: the decision, and what the caller needs to act on it.
create type actae.park_row as (
    outcome text,
    channel_id text,
    status text,
    key_name text,
    wake_at timestamptz,
    event_type text,
    deadline timestamptz,
    cursor bigint,
    payload jsonb,
    recorded_at timestamptz
);

alter type actae.run_row owner to actae_owner;
alter type actae.park_row owner to actae_owner;

-- Parked sleeps and waits are operations of their own kind (sql/40_runs.sql, _park_event).
alter domain actae.operation_kind drop constraint operation_kind_check;
alter domain actae.operation_kind add constraint operation_kind_check check (
    value in ('record_event', 'transition_state', 'fork_channel', 'sleep_run', 'wait_for_event')
);
