-- 0008_langgraph: the index LangGraph's checkpointer interface needs over Actae's ledger.
--
-- A LangGraph thread namespace (thread_id, checkpoint_ns) is one Actae channel. A checkpoint
-- is a state transition of that channel (event 'langgraph.checkpoint' + state snapshot), a
-- pending write is an event ('langgraph.write'). These tables hold no state of their own:
-- they say which channel a thread namespace is, and which event and snapshot a checkpoint
-- id or a pending write is, so reads by checkpoint id, by run id and in checkpoint id order
-- are index lookups. data_channel_id is the channel whose event and snapshot the row points
-- at: the row's own channel, or an ancestor when the thread was copied or forked (the
-- copy inherits the ancestor's events through fork_channel instead of copying them).
-- Tables are not a public interface: callers use the actae.langgraph_* functions.

-- A thread namespace has at most one channel. That is kept by the functions (they create a
-- mapping under a transaction-scoped advisory lock on the thread namespace), not by a
-- unique index, because every key leads with channel_id (SPEC section 6).
create table actae.langgraph_threads (
    channel_id text primary key,
    thread_id text not null,
    checkpoint_ns text not null,
    created_at timestamptz not null default actae._now()
);
create index langgraph_threads_thread_id_idx
on actae.langgraph_threads (thread_id, checkpoint_ns);

create table actae.langgraph_checkpoints (
    channel_id text not null,
    checkpoint_id text not null,
    parent_checkpoint_id text,
    data_channel_id text not null,
    cursor bigint not null,
    version bigint not null,
    metadata jsonb not null,
    primary key (channel_id, checkpoint_id)
);
-- delete_for_runs finds a run's checkpoints without a scan.
create index langgraph_checkpoints_run_id_idx
on actae.langgraph_checkpoints ((metadata ->> 'run_id'))
where metadata ? 'run_id';

create table actae.langgraph_writes (
    channel_id text not null,
    checkpoint_id text not null,
    task_id text not null,
    idx integer not null,
    data_channel_id text not null,
    cursor bigint not null,
    primary key (channel_id, checkpoint_id, task_id, idx)
);

alter table actae.langgraph_threads owner to actae_owner;
alter table actae.langgraph_checkpoints owner to actae_owner;
alter table actae.langgraph_writes owner to actae_owner;
grant select on actae.langgraph_threads, actae.langgraph_checkpoints,
actae.langgraph_writes to actae_auditor;

-- One checkpoint as langgraph_get_tuple and langgraph_list return it. pending_writes is a
-- JSON array of [task_id, channel, value] in LangGraph's writes_sort_key order. In
-- checkpoint, a serialized channel value stored as {"type": t, "data": base64} comes as
-- {"type": t, "blob": i} with its bytes in blobs[i], so large values travel as bytes.
create type actae.langgraph_checkpoint_row as (
    thread_id text,
    checkpoint_ns text,
    checkpoint_id text,
    parent_checkpoint_id text,
    checkpoint jsonb,
    metadata jsonb,
    pending_writes jsonb,
    channel_id text,
    blobs bytea []
);

create type actae.langgraph_put_result as (
    channel_id text,
    checkpoint_id text,
    cursor bigint,
    version bigint,
    outcome text
);

alter type actae.langgraph_checkpoint_row owner to actae_owner;
alter type actae.langgraph_put_result owner to actae_owner;
