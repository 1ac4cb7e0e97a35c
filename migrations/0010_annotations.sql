-- 0010_annotations: what a person adds to a channel after the fact, and the row shapes of the
-- console reads (sql/60_console.sql).
--
-- * actae.annotations: a display name, tags and a note (e.g. why a fork was made), one row
--   per channel, changed only through actae.annotate_channel, which is fenced by revision.
--   They live beside the channel, not in channels.metadata: metadata set at creation is part
--   of the channel's identity (create_channel compares it) and never changes; annotations
--   do. Keeping them in their own table also leaves the channel row, which every append
--   updates, exactly as it was.
-- * channels_created_idx serves list_channels (newest first, keyset (created_at,
--   channel_id)); channels_parent_idx serves its parent filter and fork_tree's walk down.
--   Neither column changes after the insert, so appends stay HOT updates.
create table actae.annotations (
    channel_id text primary key,
    display_name text,
    tags text[] not null default '{}',
    note text,
    revision bigint not null,
    updated_at timestamptz not null
);
alter table actae.annotations owner to actae_owner;
grant select on actae.annotations to actae_auditor;

create index channels_created_idx on actae.channels (created_at, channel_id);
create index channels_parent_idx on actae.channels (parent_channel_id)
where parent_channel_id is not null;

-- list_channels: one channel with its run (when it has one), annotations and ledger health.
create type actae.channel_summary as (
    channel_id text,
    created_at timestamptz,
    parent_channel_id text,
    fork_cursor bigint,
    head_cursor bigint,
    state_version bigint,
    metadata jsonb,
    closed_at timestamptz,
    last_event_at timestamptz,
    run_status text,
    run_agent text,
    executions bigint,
    in_flight bigint,
    failed bigint,
    ambiguous bigint,
    display_name text,
    tags text [],
    note text,
    annotation_revision bigint
);

-- timeline: an event or one point in a tool execution's life, at its place on the clock.
create type actae.timeline_row as (
    clock bigint,
    cursor bigint,
    kind text,
    at timestamptz,
    source_channel_id text,
    event_type text,
    payload jsonb,
    execution_id uuid,
    key_name text,
    tool_name text,
    attempt integer,
    status text,
    ambiguous boolean,
    retryable boolean,
    params jsonb,
    result jsonb,
    error text
);

-- fork_tree: one channel of a fork tree.
create type actae.fork_node as (
    channel_id text,
    parent_channel_id text,
    fork_cursor bigint,
    depth integer,
    head_cursor bigint,
    state_version bigint,
    tool_policies jsonb,
    metadata jsonb,
    created_at timestamptz,
    closed_at timestamptz,
    run_status text,
    in_flight bigint,
    failed bigint,
    ambiguous bigint,
    display_name text,
    tags text [],
    note text
);

-- diff_states: where two channels part and how their latest states differ.
create type actae.state_diff as (
    channel_a text,
    channel_b text,
    common_ancestor text,
    cursor_a bigint,
    cursor_b bigint,
    shared_cursor bigint,
    version_a bigint,
    version_b bigint,
    changes jsonb,
    truncated boolean
);

-- decision_trail: what a channel knew at a cursor.
create type actae.decision_trail as (
    channel_id text,
    cursor bigint,
    lineage jsonb,
    event jsonb,
    state_version bigint,
    state_cursor bigint,
    state jsonb,
    tool_results jsonb
);

-- annotate_channel: the annotations of a channel and the outcome of the call.
create type actae.annotation_row as (
    channel_id text,
    display_name text,
    tags text [],
    note text,
    revision bigint,
    updated_at timestamptz,
    outcome text
);

alter type actae.channel_summary owner to actae_owner;
alter type actae.timeline_row owner to actae_owner;
alter type actae.fork_node owner to actae_owner;
alter type actae.state_diff owner to actae_owner;
alter type actae.decision_trail owner to actae_owner;
alter type actae.annotation_row owner to actae_owner;
