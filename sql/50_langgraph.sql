-- LangGraph checkpointer functions (migration 0008; python/actae/langgraph.py calls them).
--
-- A thread namespace (thread_id, checkpoint_ns) is one channel; a checkpoint is a state
-- transition of it (event 'langgraph.checkpoint', payload {checkpoint_id,
-- parent_checkpoint_id, metadata}, state = the checkpoint); a pending write is an event
-- 'langgraph.write' (payload {checkpoint_id, task_id, task_path, idx, channel, value}) with
-- operation_id 'write:<checkpoint_id>:<task_id>:<idx>'. The langgraph_* tables only index
-- those events. Each function is one transaction, one round trip.
--
--   langgraph_put             store a checkpoint (idempotent per checkpoint_id)
--   langgraph_put_writes      store a task's pending writes (a retry never duplicates)
--   langgraph_get_tuple       one checkpoint (latest, or by id) with its pending writes
--   langgraph_list            checkpoints newest first: thread, namespace, metadata filter,
--                             before, limit
--   langgraph_delete_thread   forget a thread (deleted, or closed when a fork inherits it)
--   langgraph_copy_thread     a new thread with every checkpoint of another (fork_channel)
--   langgraph_fork_thread     a new thread that starts at a past root checkpoint, with the
--                             subgraphs resuming there needs (a fork_channel per namespace)
--   langgraph_prune           keep only the latest checkpoint per namespace, or delete
--   langgraph_delete_for_runs forget the checkpoints of some runs
--   langgraph_channel         the channel of a thread namespace (for durable tools)

-- actae._langgraph_check_thread — AC400 unless thread_id is 1..1024 bytes and
-- checkpoint_ns is not null and at most 1024 bytes ('' is the root namespace).
create or replace function actae._langgraph_check_thread(
    p_thread_id text,
    p_checkpoint_ns text
) returns void
language plpgsql
immutable
as $$
begin
    perform actae._check_text(p_thread_id, 'thread_id', 1024);
    perform actae._require(p_checkpoint_ns is null, 'checkpoint_ns');
    if octet_length(p_checkpoint_ns) > 1024 then
        perform actae._raise(
            'AC400', 'checkpoint_ns must be at most 1024 bytes of text',
            jsonb_build_object('argument', 'checkpoint_ns', 'max_bytes', 1024,
                'bytes', octet_length(p_checkpoint_ns))
        );
    end if;
end;
$$;

-- actae._langgraph_check_object — AC400 naming p_argument unless p_value is a JSON object.
create or replace function actae._langgraph_check_object(
    p_value jsonb,
    p_argument text
) returns void
language plpgsql
immutable
as $$
begin
    if p_value is null or jsonb_typeof(p_value) <> 'object' then
        perform actae._raise(
            'AC400', format('%s must be a JSON object', p_argument),
            jsonb_build_object('argument', p_argument, 'type', jsonb_typeof(p_value))
        );
    end if;
end;
$$;

-- actae._langgraph_lock_mapping — a thread namespace's mapping, locked FOR KEY SHARE until
-- the caller's transaction ends (so no langgraph_delete_thread removes it, and drops its
-- channel, meanwhile): its channel id (o_channel_id) and that channel's tenant (o_tenant, null
-- when the channel is gone). Both null when there is no mapping, also when a concurrent
-- delete of it commits while the lock waits. The row is found by thread first, then locked
-- and joined to its channel in one statement by its channel id, so on Citus that statement
-- is a router query (langgraph_threads and channels are co-located on channel_id).
create or replace function actae._langgraph_lock_mapping(
    p_thread_id text,
    p_checkpoint_ns text,
    out o_channel_id text,
    out o_tenant oid
)
language plpgsql
volatile
as $$
declare
    v_channel_id text;
begin
    select t.channel_id into v_channel_id from actae.langgraph_threads as t
    where t.thread_id = p_thread_id and t.checkpoint_ns = p_checkpoint_ns;
    if not found then
        return;
    end if;
    select t.channel_id, c.tenant into o_channel_id, o_tenant
    from actae.langgraph_threads as t
    left join actae.channels as c on t.channel_id = c.channel_id
    where t.channel_id = v_channel_id and t.thread_id = p_thread_id
        and t.checkpoint_ns = p_checkpoint_ns
    for key share of t;
end;
$$;

-- actae._langgraph_new_mapping — the mapping of a thread namespace that had none when the
-- caller looked (_langgraph_lock_mapping), made now unless a concurrent creator of the same
-- namespace made it first: creators take a transaction-scoped advisory lock on the namespace
-- and look again under it, so they agree on one channel. Returns it as
-- _langgraph_lock_mapping does (locked; o_tenant null when its channel does not exist).
-- A new mapping's channel is named 'langgraph:<thread_id>[:<checkpoint_ns>]' when that fits
-- and is free (also of a mapping another thread namespace is creating concurrently: on
-- conflict it falls back), else 'langgraph:<uuid>'. With p_with_channel the channel is
-- created too (empty, the caller's tenant's: actae._new_channel_tenant); without, it is left
-- to the caller (who forks into it).
-- A thread is one tenant's: a new namespace of a thread that has a namespace in a channel
-- of another tenant is refused (AC404 naming 'langgraph:<thread_id>[:<checkpoint_ns>]', the
-- channel the caller's namespace would get, never the other tenant's channel id), so no
-- tenant can add a namespace to (and so block a copy of, or a subgraph of) another
-- tenant's thread.
create or replace function actae._langgraph_new_mapping(
    p_thread_id text,
    p_checkpoint_ns text,
    p_with_channel boolean,
    out o_channel_id text,
    out o_tenant oid
)
language plpgsql
volatile
as $$
declare
    v_name text := 'langgraph:' || p_thread_id
        || case when p_checkpoint_ns = '' then '' else ':' || p_checkpoint_ns end;
    v_found record;
    v_roles oid [];
begin
    perform pg_advisory_xact_lock(
        hashtextextended('actae.langgraph_threads' || chr(31) || p_thread_id || chr(31)
            || p_checkpoint_ns, 0)
    );
    v_found := actae._langgraph_lock_mapping(p_thread_id, p_checkpoint_ns);
    if v_found.o_channel_id is not null then
        o_channel_id := v_found.o_channel_id;
        o_tenant := v_found.o_tenant;
        return;
    end if;
    -- Tenants from actae._member_of (null: a superuser, a member of all), not actae._owns
    -- in the query: on Citus it runs on the shards as another role.
    v_roles := actae._member_of();
    -- Named as the caller's own new channel would be: not the other tenant's channel id.
    if exists (
        select 1 from actae.langgraph_threads as t
        inner join actae.channels as c on t.channel_id = c.channel_id
        where t.thread_id = p_thread_id and v_roles is not null and not c.tenant = any(v_roles)
    ) then
        perform actae._no_channel(v_name);
    end if;
    if octet_length(v_name) <= 256
        and not exists (select 1 from actae.channels as c where c.channel_id = v_name)
        then
        -- Another thread namespace may want the same name ('a:b' and namespace '' against
        -- 'a' and namespace 'b'): the later of two concurrent creators waits for the
        -- earlier one here and then takes a uuid name instead of failing (23505).
        insert into actae.langgraph_threads (channel_id, thread_id, checkpoint_ns)
        values (v_name, p_thread_id, p_checkpoint_ns)
        on conflict (channel_id) do nothing;
        if found then
            o_channel_id := v_name;
        end if;
    end if;
    if o_channel_id is null then
        o_channel_id := 'langgraph:' || gen_random_uuid();
        insert into actae.langgraph_threads (channel_id, thread_id, checkpoint_ns)
        values (o_channel_id, p_thread_id, p_checkpoint_ns);
    end if;
    if p_with_channel then
        insert into actae.channels (channel_id, tenant)
        values (o_channel_id, actae._new_channel_tenant(o_channel_id))
        on conflict (channel_id) do nothing
        returning tenant into o_tenant;
        if not found then
            o_tenant := actae._channel_tenant(o_channel_id);
        end if;
    end if;
end;
$$;

-- actae._langgraph_channel — the channel id of a thread namespace's mapping, locked FOR KEY
-- SHARE until the caller's transaction ends (_langgraph_lock_mapping), so a concurrent
-- langgraph_delete_thread is waited for (once it has committed the mapping is gone) and no
-- delete can remove the mapping before the caller's transaction ends. Null when there is
-- none and p_create is false; with p_create a namespace without one gets a new mapping
-- (_langgraph_new_mapping, which also refuses another tenant's thread), whose channel the
-- caller creates (copy_thread and fork_thread fork into it).
create or replace function actae._langgraph_channel(
    p_thread_id text,
    p_checkpoint_ns text,
    p_create boolean
) returns text
language plpgsql
volatile
as $$
declare
    v_map record := actae._langgraph_lock_mapping(p_thread_id, p_checkpoint_ns);
begin
    if v_map.o_channel_id is null and p_create then
        v_map := actae._langgraph_new_mapping(p_thread_id, p_checkpoint_ns, false);
    end if;
    return v_map.o_channel_id;
end;
$$;

-- actae._langgraph_namespace_channel — the channel a writer of a thread namespace appends to
-- (langgraph_put, langgraph_put_writes, langgraph_channel): the mapped one, or, when the
-- namespace has no mapping (none yet, or a concurrent langgraph_delete_thread removed it), a
-- new mapping and channel (empty, the caller's tenant's; see _langgraph_new_mapping). The
-- mapping is looked up once and stays locked until the caller's transaction ends
-- (_langgraph_lock_mapping, which reads the channel's tenant in the same statement), so the
-- channel is not deleted under the writer, and a mapping whose channel is gone is never
-- given a new channel silently.
-- Raises: AC404 'channel langgraph:<thread_id>[:<checkpoint_ns>] does not exist', naming the
-- channel the caller's namespace would get (never another tenant's channel id), when the
-- namespace's channel is another tenant's or gone, or the thread is another tenant's.
create or replace function actae._langgraph_namespace_channel(
    p_thread_id text,
    p_checkpoint_ns text
) returns text
language plpgsql
volatile
as $$
declare
    v_map record := actae._langgraph_lock_mapping(p_thread_id, p_checkpoint_ns);
begin
    if v_map.o_channel_id is null then
        v_map := actae._langgraph_new_mapping(p_thread_id, p_checkpoint_ns, true);
    end if;
    if v_map.o_tenant is null or not actae._owns(v_map.o_tenant) then
        perform actae._no_channel('langgraph:' || p_thread_id
            || case when p_checkpoint_ns = '' then '' else ':' || p_checkpoint_ns end);
    end if;
    return v_map.o_channel_id;
end;
$$;

-- actae._langgraph_writes — the pending writes of a checkpoint as one JSON array of
-- [task_id, channel, value], in LangGraph's writes_sort_key order (task_path, task_id, idx;
-- text by code point, as Python compares it, whatever the database's collation).
-- One row. LANGUAGE sql and set-returning, so a query that calls it in FROM gets it inlined.
create or replace function actae._langgraph_writes(
    p_channel_id text,
    p_checkpoint_id text
) returns table (writes jsonb)
language sql
stable
as $$
    select coalesce(jsonb_agg(
        jsonb_build_array(w.task_id, e.payload -> 'channel', e.payload -> 'value')
        order by (e.payload ->> 'task_path') collate "C", w.task_id collate "C", w.idx
    ), '[]'::jsonb)
    from actae.langgraph_writes as w
    inner join actae.events as e
        on w.data_channel_id = e.channel_id and w.cursor = e.cursor
    where w.channel_id = p_channel_id and w.checkpoint_id = p_checkpoint_id
$$;

-- actae._langgraph_writes_routed — _langgraph_writes for Citus: the same JSON array, read
-- with one statement per table and channel, each filtered on its distribution column (a
-- router query), and joined here. Citus refuses a SQL function that reads distributed
-- tables with parameters, and the writes join the events of another channel (a copied or
-- forked thread's writes point into its source's events).
create or replace function actae._langgraph_writes_routed(
    p_channel_id text,
    p_checkpoint_id text
) returns jsonb
language plpgsql
stable
as $$
declare
    v_task text [];
    v_idx integer [];
    v_data text [];
    v_cursor bigint [];
    v_ev_channel text [] := '{}'::text [];
    v_ev_cursor bigint [] := '{}'::bigint [];
    v_ev_payload jsonb [] := '{}'::jsonb [];
    v_channel text;
    v_writes jsonb;
begin
    select array_agg(w.task_id), array_agg(w.idx), array_agg(w.data_channel_id),
        array_agg(w.cursor)
    into v_task, v_idx, v_data, v_cursor
    from actae.langgraph_writes as w
    where w.channel_id = p_channel_id and w.checkpoint_id = p_checkpoint_id;
    if v_task is null then
        return '[]'::jsonb;
    end if;
    for v_channel in select distinct d.channel_id from unnest(v_data) as d (channel_id) loop
        select
            v_ev_channel || array_agg(e.channel_id),
            v_ev_cursor || array_agg(e.cursor),
            v_ev_payload || array_agg(e.payload)
        into v_ev_channel, v_ev_cursor, v_ev_payload
        from actae.events as e
        where e.channel_id = v_channel and e.cursor = any(v_cursor);
    end loop;
    select coalesce(jsonb_agg(
        jsonb_build_array(w.task_id, e.payload -> 'channel', e.payload -> 'value')
        order by (e.payload ->> 'task_path') collate "C", w.task_id collate "C", w.idx
    ), '[]'::jsonb)
    into v_writes
    from unnest(v_task, v_idx, v_data, v_cursor) as w (task_id, idx, data_channel_id, cursor)
    inner join unnest(v_ev_channel, v_ev_cursor, v_ev_payload) as e (channel_id, cursor, payload)
        on w.data_channel_id = e.channel_id and w.cursor = e.cursor;
    return v_writes;
end;
$$;

-- actae._langgraph_split_blobs — the inverse of _langgraph_inline_blobs for reads: the
-- state with every channel value {"type": t, "data": base64} replaced by {"type": t,
-- "blob": i}, and the decoded bytes as blobs[i] (blobs null and the state unchanged when
-- there are none). One row. LANGUAGE sql and set-returning, so a query that calls it in
-- FROM gets it inlined instead of calling a function per row.
create or replace function actae._langgraph_split_blobs(
    p_state jsonb
) returns table (checkpoint jsonb, blobs bytea[])
language sql
immutable
as $$
    select
        case when n.blobs is null then p_state
            else jsonb_set(p_state, '{channel_values}', n.vals) end,
        n.blobs
    from (
        select
            jsonb_object_agg(v.channel, case
                when v.blob is null then v.value
                else jsonb_build_object('type', v.value -> 'type', 'blob', v.blob)
            end) as vals,
            array_agg(decode(v.value ->> 'data', 'base64') order by v.blob)
                filter (where v.blob is not null) as blobs
        from (
            select
                e.key as channel, e.value,
                case when jsonb_typeof(e.value) = 'object' and e.value ? 'data' then
                    count(*) filter (
                        where jsonb_typeof(e.value) = 'object' and e.value ? 'data'
                    ) over (order by e.key)
                end as blob
            from jsonb_each(case
                when jsonb_typeof(p_state -> 'channel_values') = 'object'
                    then p_state -> 'channel_values'
            end) as e
        ) as v
    ) as n
$$;

-- actae._langgraph_drop_channel — forget a thread namespace's channel: its index rows go;
-- the channel itself (events, snapshots, operations, executions, its run and annotations)
-- is deleted, unless a fork inherits from it (a copied or forked thread), in which case it
-- is closed and purge deletes it once nothing inherits from it any more. The caller
-- removed the mapping.
create or replace function actae._langgraph_drop_channel(
    p_channel_id text
) returns void
language plpgsql
volatile
as $$
declare
    v_now timestamptz;
begin
    delete from actae.langgraph_writes as w where w.channel_id = p_channel_id;
    delete from actae.langgraph_checkpoints as k where k.channel_id = p_channel_id;
    -- The channel's purge guard, exclusive (as purge takes it, but waiting): a claim in the
    -- channel that is not committed yet (a durable tool starting) finishes first and its
    -- row is deleted with the others, instead of committing into a deleted channel; later
    -- claims wait for this transaction.
    perform pg_advisory_xact_lock(actae._guard_key(1633907809, p_channel_id));
    -- FOR UPDATE conflicts with fork_channel's lock on its source: no fork can start now.
    perform 1 from actae.channels as c where c.channel_id = p_channel_id for update;
    if not found then
        return;
    end if;
    if exists (
        select 1 from actae.channels as f
        where f.parent_channel_id is not null and f.lineage_ids @> array[p_channel_id]
    ) then
        -- The clock read into a local first: Citus refuses a volatile function inside an
        -- UPDATE of a distributed table.
        v_now := actae._now();
        update actae.channels as c set closed_at = coalesce(c.closed_at, v_now)
        where c.channel_id = p_channel_id;
        return;
    end if;
    delete from actae.executions as e where e.channel_id = p_channel_id;
    delete from actae.events as e where e.channel_id = p_channel_id;
    delete from actae.snapshots as s where s.channel_id = p_channel_id;
    delete from actae.operations as o where o.channel_id = p_channel_id;
    -- What lives beside the channel goes too (as in actae.purge): the thread started
    -- afresh under the same channel id must not show the old annotations or run.
    perform actae._delete_beside_channel(p_channel_id);
    delete from actae.channels as c where c.channel_id = p_channel_id;
end;
$$;

-- actae._langgraph_require_new_thread — AC409 (DETAIL names p_argument) when the thread
-- already has a namespace: copies and forks create threads, they never merge into one.
create or replace function actae._langgraph_require_new_thread(
    p_thread_id text,
    p_argument text
) returns void
language plpgsql
stable
as $$
begin
    if exists (select 1 from actae.langgraph_threads as t where t.thread_id = p_thread_id) then
        perform actae._raise(
            'AC409', format('thread %s already exists', p_thread_id),
            jsonb_build_object('argument', p_argument, p_argument, p_thread_id)
        );
    end if;
end;
$$;

-- actae._langgraph_copy_index — index, under the thread namespace channel p_target_id,
-- every checkpoint and pending write of p_source_id recorded at or before p_at_cursor. The
-- rows keep pointing at the events and snapshots where they live (the target is a fork of
-- the source and inherits them), so only ids and metadata are copied.
create or replace function actae._langgraph_copy_index(
    p_source_id text,
    p_target_id text,
    p_at_cursor bigint
) returns void
language plpgsql
volatile
as $$
begin
    insert into actae.langgraph_checkpoints (
        channel_id, checkpoint_id, parent_checkpoint_id, data_channel_id, cursor, version,
        metadata
    )
    select
        p_target_id, k.checkpoint_id, k.parent_checkpoint_id, k.data_channel_id, k.cursor,
        k.version, k.metadata
    from actae.langgraph_checkpoints as k
    where k.channel_id = p_source_id and k.cursor <= p_at_cursor;
    insert into actae.langgraph_writes (
        channel_id, checkpoint_id, task_id, idx, data_channel_id, cursor
    )
    select p_target_id, w.checkpoint_id, w.task_id, w.idx, w.data_channel_id, w.cursor
    from actae.langgraph_writes as w
    where w.channel_id = p_source_id and w.cursor <= p_at_cursor;
end;
$$;

-- actae._langgraph_stored_value — true when p_value has the shape of a value the saver
-- stores and reads back (a channel value, a pending write's value, an encoded checkpoint
-- field): {"value": any} (without "data" or "blob"), or {"type": text, "data": text} (its
-- data base64: see _langgraph_bad_base64).
create or replace function actae._langgraph_stored_value(
    p_value jsonb
) returns boolean
language sql
immutable
as $$
    select coalesce(jsonb_typeof(p_value) = 'object' and case
        when p_value ? 'data' then jsonb_typeof(p_value -> 'type') = 'string'
            and jsonb_typeof(p_value -> 'data') = 'string'
        else p_value ? 'value' and not p_value ? 'blob'
    end, false)
$$;

-- actae._langgraph_bad_base64 — true when some element of p_values that has a "data" holds
-- text that is not base64 (PostgreSQL's decoder: line breaks are skipped, padding is
-- required). One subtransaction for the whole array, none for an empty or null one (no
-- statement either: callers pass only values that have a "data").
create or replace function actae._langgraph_bad_base64(
    p_values jsonb[]
) returns boolean
language plpgsql
immutable
as $$
begin
    if coalesce(cardinality(p_values), 0) = 0 then
        return false;
    end if;
    begin
        perform decode(v.value ->> 'data', 'base64')
        from unnest(p_values) as v (value)
        where jsonb_typeof(v.value) = 'object' and v.value ? 'data';
    exception when invalid_parameter_value then
        return true;
    end;
    return false;
end;
$$;

-- actae._langgraph_check_values — AC400 naming checkpoint unless the checkpoint (as sent,
-- before its blobs are inlined) has the shape the saver reads back: "channel_values" a JSON
-- object whose every value is a stored value (_langgraph_stored_value, base64 data) or a
-- blob reference {"type": text, "blob": i} (the index is checked by
-- _langgraph_inline_blobs), and "encoded", when present, an object of stored values.
create or replace function actae._langgraph_check_values(
    p_checkpoint jsonb
) returns void
language plpgsql
immutable
as $$
declare
    -- jsonb_each refuses a non-object: each query runs only once the type is known.
    v_bad boolean := jsonb_typeof(p_checkpoint -> 'channel_values') is distinct from 'object';
begin
    -- One statement: a value of another shape, or data that is not base64 (either way the
    -- checkpoint is refused, so the order the two are evaluated in does not matter).
    if not v_bad then
        v_bad := exists (
            select 1 from jsonb_each(p_checkpoint -> 'channel_values') as v (channel, value)
            where not actae._langgraph_stored_value(v.value)
                and not (jsonb_typeof(v.value) = 'object' and v.value ? 'blob'
                    and jsonb_typeof(v.value -> 'type') = 'string')
        ) or actae._langgraph_bad_base64(array(
            select v.value from jsonb_each(p_checkpoint -> 'channel_values') as v (channel, value)
            where v.value ? 'data'
        ));
    end if;
    if v_bad then
        perform actae._raise(
            'AC400',
            'checkpoint must have "channel_values": a JSON object of {"value": any},'
            || ' {"type": text, "data": base64} or {"type": text, "blob": i}',
            jsonb_build_object('argument', 'checkpoint')
        );
    end if;
    if not p_checkpoint ? 'encoded' then
        return;
    end if;
    v_bad := jsonb_typeof(p_checkpoint -> 'encoded') <> 'object';
    if not v_bad then
        v_bad := exists (
            select 1 from jsonb_each(p_checkpoint -> 'encoded') as v (field, value)
            where not actae._langgraph_stored_value(v.value)
        ) or actae._langgraph_bad_base64(array(
            select v.value from jsonb_each(p_checkpoint -> 'encoded') as v (field, value)
            where v.value ? 'data'
        ));
    end if;
    if v_bad then
        perform actae._raise(
            'AC400',
            'checkpoint "encoded" must be a JSON object of {"value": any} or'
            || ' {"type": text, "data": base64}',
            jsonb_build_object('argument', 'checkpoint')
        );
    end if;
end;
$$;

-- actae._langgraph_inline_blobs — the checkpoint with every channel value {"type": t,
-- "blob": i} replaced by {"type": t, "data": base64 of p_blobs[i]} (PostgreSQL's base64,
-- with a line break every 76 characters, which base64 decoders skip).
-- Raises: AC400 when a blob index is not an integer within p_blobs.
create or replace function actae._langgraph_inline_blobs(
    p_checkpoint jsonb,
    p_blobs bytea[]
) returns jsonb
language plpgsql
immutable
as $$
begin
    if jsonb_typeof(p_checkpoint -> 'channel_values') is distinct from 'object' then
        return p_checkpoint;
    end if;
    if exists (
        select 1 from jsonb_each(p_checkpoint -> 'channel_values') as v (channel, value)
        where jsonb_typeof(v.value) = 'object' and v.value ? 'blob' and case
            when jsonb_typeof(v.value -> 'blob') <> 'number'
                or (v.value ->> 'blob') !~ '^[0-9]{1,9}$' then true
            else p_blobs[(v.value ->> 'blob')::integer] is null
        end
    ) then
        perform actae._raise(
            'AC400', 'every channel value {"blob": i} must name an element of blobs',
            jsonb_build_object('argument', 'blobs', 'blobs', cardinality(p_blobs))
        );
    end if;
    return jsonb_set(p_checkpoint, '{channel_values}', (
        select coalesce(jsonb_object_agg(v.channel, case
            when jsonb_typeof(v.value) = 'object' and v.value ? 'blob' then jsonb_build_object(
                'type', v.value -> 'type',
                'data', encode(p_blobs[(v.value ->> 'blob')::integer], 'base64')
            )
            else v.value
        end), '{}'::jsonb)
        from jsonb_each(p_checkpoint -> 'channel_values') as v (channel, value)
    ));
end;
$$;

-- actae.langgraph_put — store a LangGraph checkpoint as a state transition of the thread
-- namespace's channel (created on first use): event 'langgraph.checkpoint' with payload
-- {checkpoint_id, parent_checkpoint_id, metadata} and the checkpoint as the new state.
-- Guarantees: one transaction; operation_id 'checkpoint:<checkpoint_id>', so repeating the
-- call with the same content replays it (outcome replayed, same cursor and version), also
-- for a checkpoint a copied or forked thread inherited. The operation's content hash
-- covers the event; the state is compared with the stored snapshot on a repeat only.
-- p_blobs carries large serialized channel values as bytes, so they are not sent as JSON:
-- a channel value {"type": t, "blob": i} in the checkpoint is stored as {"type": t, "data":
-- base64 of p_blobs[i]} (see _langgraph_inline_blobs). A put that meets a concurrent
-- langgraph_delete_thread of the thread waits for it and stores the checkpoint in the thread
-- started afresh (_langgraph_namespace_channel), never in the deleted channel.
-- Only a checkpoint the saver can read back is stored: "channel_values" a JSON object of
-- {"value": any}, {"type": text, "data": base64} or {"type": text, "blob": i}; "encoded"
-- (when present) an object of the first two; "id" (when present) equal to p_checkpoint_id.
-- Raises: AC400 bad argument (thread_id 1..1024 bytes, checkpoint_id 1..100 bytes,
-- checkpoint and metadata JSON objects, checkpoint of another shape, checkpoint at most
-- 8 MiB, metadata at most 1 MiB, a blob index outside p_blobs), AC404 another tenant's thread
-- (naming 'langgraph:<thread_id>[:<checkpoint_ns>]', not its channel id), AC409 the
-- checkpoint id was stored with different content.
create or replace function actae.langgraph_put(
    p_thread_id text,
    p_checkpoint_ns text,
    p_checkpoint_id text,
    p_parent_checkpoint_id text,
    p_checkpoint jsonb,
    p_metadata jsonb,
    p_blobs bytea[] default null
) returns actae.langgraph_put_result
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_channel actae.channels;
    v_payload jsonb;
    v_content text;
    v_op actae.operations;
    v_done actae.transition_result;
    v_checkpoint jsonb := p_checkpoint;
begin
    perform actae._langgraph_check_thread(p_thread_id, p_checkpoint_ns);
    perform actae._check_text(p_checkpoint_id, 'checkpoint_id', 100);
    if p_parent_checkpoint_id is not null then
        perform actae._check_text(p_parent_checkpoint_id, 'parent_checkpoint_id', 100);
    end if;
    perform actae._langgraph_check_object(p_checkpoint, 'checkpoint');
    perform actae._langgraph_check_values(p_checkpoint);
    -- The saver reads the checkpoint's id from its config, and LangGraph from the body.
    if p_checkpoint ? 'id' and (p_checkpoint -> 'id') is distinct from to_jsonb(p_checkpoint_id)
        then
        perform actae._raise(
            'AC400', 'checkpoint "id", when present, must equal checkpoint_id',
            jsonb_build_object('argument', 'checkpoint', 'checkpoint_id', p_checkpoint_id)
        );
    end if;
    -- Values are rebuilt only when there is something to inline (or a reference to refuse).
    if cardinality(p_blobs) > 0 or jsonb_path_exists(p_checkpoint, '$.channel_values.*.blob')
        then
        v_checkpoint := actae._langgraph_inline_blobs(p_checkpoint, p_blobs);
    end if;
    perform actae._langgraph_check_object(p_metadata, 'metadata');
    perform actae._check_json(v_checkpoint, 'checkpoint', 8388608);
    perform actae._check_json(p_metadata, 'metadata', 1048576);
    v_payload := jsonb_build_object(
        'checkpoint_id', p_checkpoint_id, 'parent_checkpoint_id', p_parent_checkpoint_id,
        'metadata', p_metadata
    );
    v_channel := actae._lock_channel(
        actae._langgraph_namespace_channel(p_thread_id, p_checkpoint_ns), false
    );
    -- The operation's content hash covers the event (ids, parent, metadata); the state is
    -- compared only when the id was seen before, so a put never hashes a large state.
    v_content := encode(sha256(convert_to(
        jsonb_build_array('langgraph.checkpoint', v_payload)::text, 'UTF8'
    )), 'hex');
    v_op := actae._find_operation(
        v_channel, 'checkpoint:' || p_checkpoint_id, 'transition_state', v_content
    );
    if v_op.operation_id is not null then
        if not exists (
            select 1 from actae.snapshots as s
            where s.channel_id = v_op.channel_id and s.version = v_op.version
                and s.state = v_checkpoint
        ) then
            perform actae._raise(
                'AC409',
                format('checkpoint %s of thread %s was stored with a different state',
                    p_checkpoint_id, p_thread_id),
                jsonb_build_object('thread_id', p_thread_id, 'checkpoint_ns', p_checkpoint_ns,
                    'checkpoint_id', p_checkpoint_id)
            );
        end if;
        insert into actae.langgraph_checkpoints (
            channel_id, checkpoint_id, parent_checkpoint_id, data_channel_id, cursor,
            version, metadata
        ) values (
            v_channel.channel_id, p_checkpoint_id, p_parent_checkpoint_id, v_op.channel_id,
            v_op.cursor, v_op.version, p_metadata
        ) on conflict (channel_id, checkpoint_id) do nothing;
        return row(
            v_channel.channel_id, p_checkpoint_id, v_op.cursor, v_op.version, 'replayed'
        )::actae.langgraph_put_result;
    end if;
    v_done := actae._append(
        v_channel.channel_id, 'langgraph.checkpoint', v_payload,
        'checkpoint:' || p_checkpoint_id, 'transition_state', v_content, true, v_checkpoint,
        null, null
    );
    insert into actae.langgraph_checkpoints (
        channel_id, checkpoint_id, parent_checkpoint_id, data_channel_id, cursor, version,
        metadata
    ) values (
        v_channel.channel_id, p_checkpoint_id, p_parent_checkpoint_id, v_channel.channel_id,
        v_done.cursor, v_done.version, p_metadata
    );
    return row(
        v_channel.channel_id, p_checkpoint_id, v_done.cursor, v_done.version, 'transitioned'
    )::actae.langgraph_put_result;
end;
$$;

-- actae.langgraph_put_writes — store one task's pending writes for a checkpoint: each
-- element of p_writes ({"idx": int, "channel": text, "value": v}, v a value as the saver
-- stores it: {"value": any} or {"type": text, "data": base64}) is an event
-- 'langgraph.write' of the thread namespace's channel, all in one transaction. The
-- checkpoint need not be stored yet (LangGraph saves a step's writes in the background).
-- Guarantees: a regular write (idx >= 0) is recorded once per (checkpoint_id, task_id,
-- idx), under operation_id 'write:<checkpoint_id>:<task_id>:<idx>' ('write:' and the JSON
-- array [checkpoint_id, task_id, idx] for a checkpoint id with a ':', so no two writes
-- share one): a retry records nothing, and the first value stays (as LangGraph's own
-- savers do). A special write
-- (idx < 0: error, interrupt, resume, scheduled) keeps its latest value: a changed value is
-- recorded as a new event that replaces it; the same value again records nothing.
-- Like langgraph_put, it waits for a concurrent langgraph_delete_thread and then writes into
-- the thread started afresh, never into the deleted channel.
-- Returns the number of events recorded.
-- Raises: AC400 bad argument (checkpoint_id and task_id 1..100 bytes, task_path at most
-- 1024 bytes, writes a JSON array of such objects, each at most 1 MiB), AC404 another
-- tenant's thread (naming 'langgraph:<thread_id>[:<checkpoint_ns>]', not its channel id).
create or replace function actae.langgraph_put_writes(
    p_thread_id text,
    p_checkpoint_ns text,
    p_checkpoint_id text,
    p_task_id text,
    p_task_path text,
    p_writes jsonb
) returns integer
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_channel actae.channels;
    v_write jsonb;
    v_idx integer;
    v_payload jsonb;
    v_operation_id text;
    v_found actae.langgraph_writes;
    v_done actae.transition_result;
    v_recorded integer := 0;
begin
    perform actae._langgraph_check_thread(p_thread_id, p_checkpoint_ns);
    perform actae._check_text(p_checkpoint_id, 'checkpoint_id', 100);
    perform actae._check_text(p_task_id, 'task_id', 100);
    perform actae._require(p_task_path is null, 'task_path');
    perform actae._check_range(octet_length(p_task_path), 'task_path bytes', 0, 1024);
    if p_writes is null or jsonb_typeof(p_writes) <> 'array' or exists (
        select 1 from jsonb_array_elements(p_writes) as w (value)
        where case
            when jsonb_typeof(w.value) <> 'object'
                or jsonb_typeof(w.value -> 'idx') is distinct from 'number'
                or jsonb_typeof(w.value -> 'channel') is distinct from 'string'
                or not actae._langgraph_stored_value(w.value -> 'value') then true
            else (w.value ->> 'idx')::numeric not between -1000000 and 1000000
                or (w.value ->> 'idx')::numeric <> trunc((w.value ->> 'idx')::numeric)
        end
    ) or actae._langgraph_bad_base64(array(
        select w.value -> 'value' from jsonb_array_elements(p_writes) as w (value)
        where w.value -> 'value' ? 'data'
    )) then
        perform actae._raise(
            'AC400',
            'writes must be a JSON array of {"idx": integer, "channel": text, "value":'
            || ' {"value": any} or {"type": text, "data": base64}}',
            jsonb_build_object('argument', 'writes', 'type', jsonb_typeof(p_writes))
        );
    end if;
    v_channel := actae._lock_channel(
        actae._langgraph_namespace_channel(p_thread_id, p_checkpoint_ns), false
    );
    for v_write in select w.value from jsonb_array_elements(p_writes) as w (value) loop
        v_idx := (v_write ->> 'idx')::integer;
        v_payload := jsonb_build_object(
            'checkpoint_id', p_checkpoint_id, 'task_id', p_task_id, 'task_path', p_task_path,
            'idx', v_idx, 'channel', v_write -> 'channel', 'value', v_write -> 'value'
        );
        perform actae._check_json(v_payload, 'writes', 1048576);
        select w.* into v_found from actae.langgraph_writes as w
        where w.channel_id = v_channel.channel_id and w.checkpoint_id = p_checkpoint_id
            and w.task_id = p_task_id and w.idx = v_idx;
        if v_idx >= 0 then
            -- Unambiguous as long as the checkpoint id has no ':' (LangGraph's never do);
            -- one that has gets the JSON form, so ('a:b', 'c') and ('a', 'b:c') differ.
            v_operation_id := 'write:' || case when strpos(p_checkpoint_id, ':') = 0
                then p_checkpoint_id || ':' || p_task_id || ':' || v_idx
                else jsonb_build_array(p_checkpoint_id, p_task_id, v_idx)::text
            end;
            continue when v_found.cursor is not null or exists (
                select 1 from actae.operations as o
                where o.channel_id = v_channel.channel_id and o.operation_id = v_operation_id
            );
        else
            v_operation_id := null;
            continue when v_found.cursor is not null and (
                select e.payload from actae.events as e
                where e.channel_id = v_found.data_channel_id and e.cursor = v_found.cursor
            ) = v_payload;
        end if;
        v_done := actae._append(
            v_channel.channel_id, 'langgraph.write', v_payload, v_operation_id,
            'record_event',
            encode(sha256(convert_to(
                jsonb_build_array('langgraph.write', v_payload)::text, 'UTF8'
            )), 'hex'),
            false, null, null, null
        );
        insert into actae.langgraph_writes (
            channel_id, checkpoint_id, task_id, idx, data_channel_id, cursor
        ) values (
            v_channel.channel_id, p_checkpoint_id, p_task_id, v_idx, v_channel.channel_id,
            v_done.cursor
        ) on conflict (channel_id, checkpoint_id, task_id, idx) do update set
            data_channel_id = excluded.data_channel_id, cursor = excluded.cursor;
        v_recorded := v_recorded + 1;
    end loop;
    return v_recorded;
end;
$$;

-- actae.langgraph_get_tuple — one checkpoint of a thread namespace: p_checkpoint_id, or
-- the latest (greatest checkpoint id) when it is null; with its pending writes, and its
-- serialized channel values as bytes (see actae.langgraph_checkpoint_row). No row when
-- there is no such checkpoint (or thread, or the caller may not read its channel).
-- Raises: AC400 bad argument.
create or replace function actae.langgraph_get_tuple(
    p_thread_id text,
    p_checkpoint_ns text,
    p_checkpoint_id text default null
) returns setof actae.langgraph_checkpoint_row
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_channel_id text;
    v_row actae.langgraph_checkpoints;
    v_state jsonb;
begin
    perform actae._langgraph_check_thread(p_thread_id, p_checkpoint_ns);
    if p_checkpoint_id is not null then  -- the length langgraph_put takes
        perform actae._check_text(p_checkpoint_id, 'checkpoint_id', 100);
    end if;
    select t.channel_id into v_channel_id from actae.langgraph_threads as t
    where t.thread_id = p_thread_id and t.checkpoint_ns = p_checkpoint_ns;
    if not found or not actae._may_read_channel(v_channel_id) then
        return;
    end if;
    if p_checkpoint_id is null then
        select k.* into v_row from actae.langgraph_checkpoints as k
        where k.channel_id = v_channel_id
        order by k.checkpoint_id desc
        limit 1;
    else
        select k.* into v_row from actae.langgraph_checkpoints as k
        where k.channel_id = v_channel_id and k.checkpoint_id = p_checkpoint_id;
    end if;
    if v_row.checkpoint_id is null then
        return;
    end if;
    if current_setting('citus.version', true) is null then
        return query
        select
            p_thread_id, p_checkpoint_ns, v_row.checkpoint_id, v_row.parent_checkpoint_id,
            b.checkpoint, v_row.metadata, pw.writes, v_channel_id, b.blobs
        from actae.snapshots as s
        cross join lateral actae._langgraph_split_blobs(s.state) as b
        cross join lateral actae._langgraph_writes(v_channel_id, v_row.checkpoint_id) as pw
        where s.channel_id = v_row.data_channel_id and s.version = v_row.version;
        return;
    end if;
    -- On Citus: the snapshot by its channel (a router query), then the writes the same way
    -- (_langgraph_writes_routed); the snapshot's channel is not the thread's for a copy.
    select s.state into v_state from actae.snapshots as s
    where s.channel_id = v_row.data_channel_id and s.version = v_row.version;
    if not found then
        return;
    end if;
    return query
    select
        p_thread_id, p_checkpoint_ns, v_row.checkpoint_id, v_row.parent_checkpoint_id,
        b.checkpoint, v_row.metadata,
        actae._langgraph_writes_routed(v_channel_id, v_row.checkpoint_id), v_channel_id, b.blobs
    from actae._langgraph_split_blobs(v_state) as b;
end;
$$;

-- The signature before p_checkpoint_id was added (a call with the old argument list would
-- otherwise match two functions).
drop function if exists actae.langgraph_list(text, text, jsonb, text, integer);

-- actae.langgraph_list — checkpoints newest first (checkpoint id descending), each with its
-- pending writes: of one thread (all threads when p_thread_id is null), one namespace (all
-- when p_checkpoint_ns is null), whose metadata contains p_filter (jsonb @>), with a
-- checkpoint id below p_before, the one checkpoint p_checkpoint_id when given (LangGraph's
-- list of a config that names a checkpoint), at most p_limit of them (all when null; none
-- for 0, as LangGraph's savers). Only threads of the caller's tenants (every thread for a
-- caller in no tenant, a global auditor).
-- Raises: AC400 bad argument (p_filter not an object, p_limit not 0..1000000000,
-- checkpoint_ns over 1024 bytes, before or checkpoint_id not 1..100 bytes).
create or replace function actae.langgraph_list(
    p_thread_id text default null,
    p_checkpoint_ns text default null,
    p_filter jsonb default null,
    p_before text default null,
    p_limit integer default null,
    p_checkpoint_id text default null
) returns setof actae.langgraph_checkpoint_row
language plpgsql
stable
security definer
set search_path = pg_catalog, pg_temp
set plan_cache_mode = force_custom_plan
as $$
declare
    v_roles oid [] := actae._readable();
    v_row record;
    v_state jsonb;
begin
    if p_thread_id is not null then
        perform actae._check_text(p_thread_id, 'thread_id', 1024);
    end if;
    -- The lengths langgraph_put takes: a longer one names nothing that can exist.
    if octet_length(p_checkpoint_ns) > 1024 then
        perform actae._langgraph_check_thread('-', p_checkpoint_ns);
    end if;
    if p_before is not null then
        perform actae._check_text(p_before, 'before', 100);
    end if;
    if p_checkpoint_id is not null then
        perform actae._check_text(p_checkpoint_id, 'checkpoint_id', 100);
    end if;
    if p_filter is not null then
        perform actae._langgraph_check_object(p_filter, 'filter');
    end if;
    perform actae._check_range(p_limit, 'limit', 0, 1000000000);
    if current_setting('citus.version', true) is not null then
        -- On Citus: the checkpoints (joined with their threads and channels on the
        -- distribution column), newest first; then each one's snapshot and writes by their
        -- own channels (router queries), as in langgraph_get_tuple.
        for v_row in
            select
                t.thread_id, t.checkpoint_ns, k.checkpoint_id, k.parent_checkpoint_id,
                k.metadata, k.channel_id, k.data_channel_id, k.version
            from actae.langgraph_threads as t
            inner join actae.langgraph_checkpoints as k on t.channel_id = k.channel_id
            where (p_thread_id is null or t.thread_id = p_thread_id)
                and (p_checkpoint_ns is null or t.checkpoint_ns = p_checkpoint_ns)
                and (p_filter is null or k.metadata @> p_filter)
                and (p_before is null or k.checkpoint_id < p_before)
                and (p_checkpoint_id is null or k.checkpoint_id = p_checkpoint_id)
                and (v_roles is null or exists (
                    select from actae.channels as c
                    where c.channel_id = t.channel_id and c.tenant = any(v_roles)
                ))
            order by k.checkpoint_id desc
            limit p_limit
        loop
            select s.state into v_state from actae.snapshots as s
            where s.channel_id = v_row.data_channel_id and s.version = v_row.version;
            continue when not found;
            return query
            select
                v_row.thread_id, v_row.checkpoint_ns, v_row.checkpoint_id,
                v_row.parent_checkpoint_id, b.checkpoint, v_row.metadata,
                actae._langgraph_writes_routed(v_row.channel_id, v_row.checkpoint_id),
                v_row.channel_id, b.blobs
            from actae._langgraph_split_blobs(v_state) as b;
        end loop;
        return;
    end if;
    -- The page of checkpoints first, then each one's snapshot by its key (as on Citus):
    -- each namespace's newest `limit` checkpoints read backwards along the primary key
    -- (channel_id, checkpoint_id), then the newest `limit` of those. Joined before the
    -- limit, every checkpoint of the thread was read and matched with its snapshot (or the
    -- snapshots table scanned) to return a few: 10 of 20 000 took 84 ms, now 2 ms.
    return query
    select
        l.thread_id, l.checkpoint_ns, l.checkpoint_id, l.parent_checkpoint_id, b.checkpoint,
        l.metadata, pw.writes, l.channel_id, b.blobs
    from (
        select
            t.thread_id, t.checkpoint_ns, k.checkpoint_id, k.parent_checkpoint_id,
            k.metadata, k.channel_id, k.data_channel_id, k.version
        from actae.langgraph_threads as t
        cross join lateral (
            select i.* from actae.langgraph_checkpoints as i
            where i.channel_id = t.channel_id
                and (p_filter is null or i.metadata @> p_filter)
                and (p_before is null or i.checkpoint_id < p_before)
                and (p_checkpoint_id is null or i.checkpoint_id = p_checkpoint_id)
            order by i.checkpoint_id desc
            limit p_limit
        ) as k
        where (p_thread_id is null or t.thread_id = p_thread_id)
            and (p_checkpoint_ns is null or t.checkpoint_ns = p_checkpoint_ns)
            and (v_roles is null or exists (
                select from actae.channels as c
                where c.channel_id = t.channel_id and c.tenant = any(v_roles)
            ))
        order by k.checkpoint_id desc
        limit p_limit
    ) as l
    inner join actae.snapshots as s
        on s.channel_id = l.data_channel_id and s.version = l.version
    cross join lateral actae._langgraph_split_blobs(s.state) as b
    cross join lateral actae._langgraph_writes(l.channel_id, l.checkpoint_id) as pw
    order by l.checkpoint_id desc;
end;
$$;

-- actae.langgraph_delete_thread — forget every namespace of a thread: its checkpoints and
-- pending writes are no longer visible, and a later put starts the thread afresh (in a new
-- channel). Each namespace's channel is deleted with its events, snapshots and executions,
-- or, when a copied or forked thread inherits from it, closed and left to purge.
-- A write to the thread in flight (put, put_writes, langgraph_channel: they hold the mapping
-- FOR KEY SHARE) commits first and is forgotten with the thread; one that comes while the
-- delete runs waits for it and starts the thread afresh.
-- Returns the number of namespaces forgotten (0 for an unknown thread, or another tenant's:
-- not an error).
-- Raises: AC400 bad thread_id.
create or replace function actae.langgraph_delete_thread(
    p_thread_id text
) returns integer
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_map actae.langgraph_threads;
    v_count integer := 0;
    v_roles oid [] := actae._member_of();
begin
    perform actae._check_text(p_thread_id, 'thread_id', 1024);
    -- The caller's namespaces only: the roles are read once, here (where session_user is
    -- the caller, also on Citus), and each row is checked by a join on its channel, which
    -- Citus pushes down to the shards (co-located on channel_id), as in langgraph_list.
    for v_map in
        delete from actae.langgraph_threads as t
        where t.thread_id = p_thread_id and (v_roles is null or exists (
            select from actae.channels as c
            where c.channel_id = t.channel_id and c.tenant = any(v_roles)
        ))
        returning t.*
    loop
        perform actae._langgraph_drop_channel(v_map.channel_id);
        v_count := v_count + 1;
    end loop;
    return v_count;
end;
$$;

-- actae.langgraph_copy_thread — make p_target_thread_id a copy of p_source_thread_id:
-- every namespace, every checkpoint and pending write, in the same order, with the same
-- ids. Each target namespace channel is a fork_channel of the source's at its head, so
-- events, states and completed tool executions are inherited, not copied (constant cost
-- in their size); only the id index is copied. Later writes to either thread are not seen
-- by the other. Returns the number of namespaces copied (0 for an unknown source, and for
-- another tenant's: the same answer).
-- Raises: AC400 bad argument, AC409 the target thread already exists (also when another
-- tenant holds it).
create or replace function actae.langgraph_copy_thread(
    p_source_thread_id text,
    p_target_thread_id text
) returns integer
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_map actae.langgraph_threads;
    v_source actae.channels;
    v_target_id text;
    v_count integer := 0;
begin
    perform actae._check_text(p_source_thread_id, 'source_thread_id', 1024);
    perform actae._check_text(p_target_thread_id, 'target_thread_id', 1024);
    perform actae._langgraph_require_new_thread(p_target_thread_id, 'target_thread_id');
    for v_map in
        select t.* from actae.langgraph_threads as t
        where t.thread_id = p_source_thread_id
        order by t.checkpoint_ns
    loop
        -- Another tenant's namespace counts as none, as an unknown source: nothing raised.
        continue when not actae._owns_channel(v_map.channel_id);
        v_source := actae._lock_channel(v_map.channel_id, false);
        v_target_id := actae._langgraph_channel(p_target_thread_id, v_map.checkpoint_ns, true);
        perform actae.fork_channel(v_source.channel_id, v_source.head_cursor, v_target_id);
        perform actae._langgraph_copy_index(
            v_source.channel_id, v_target_id, v_source.head_cursor
        );
        v_count := v_count + 1;
    end loop;
    return v_count;
end;
$$;

-- actae._langgraph_fork_cut — where a fork of thread namespace channel p_channel_id at its
-- checkpoint p_row ends: just before the first event, after p_row's, of a later checkpoint
-- (a greater checkpoint id, or a pending write for one); the channel's head when there is
-- none. The caller holds the channel's lock (actae._lock_channel).
create or replace function actae._langgraph_fork_cut(
    p_channel_id text,
    p_row actae.langgraph_checkpoints
) returns bigint
language plpgsql
stable
as $$
declare
    v_cut bigint;
begin
    select min(l.cursor) - 1 into v_cut
    from (
        select k.cursor from actae.langgraph_checkpoints as k
        where k.channel_id = p_channel_id and k.checkpoint_id > p_row.checkpoint_id
        union all
        select w.cursor from actae.langgraph_writes as w
        where w.channel_id = p_channel_id and w.checkpoint_id > p_row.checkpoint_id
    ) as l
    where l.cursor > p_row.cursor;
    if v_cut is null then
        select c.head_cursor into v_cut from actae.channels as c
        where c.channel_id = p_channel_id;
    end if;
    return v_cut;
end;
$$;

-- actae.langgraph_fork_thread — a new thread p_new_thread_id that starts at checkpoint
-- p_checkpoint_id (C) of a thread's root namespace ('', the only p_checkpoint_ns accepted: a
-- thread is resumed from its root), with the subgraph namespaces needed to resume there. The
-- root is cut just before the first event of a later checkpoint (a checkpoint with a greater
-- id, or a pending write for one): the new thread holds the checkpoint, everything recorded
-- before it, and the pending writes of the checkpoint's own step recorded before that cut
-- (LangGraph saves writes in the background, so they may come after the next checkpoint; a
-- step whose writes are missing is simply re-run). LangGraph links a subgraph checkpoint to
-- the root checkpoint of its step by metadata parents[''] (nested subgraphs too). Forked
-- with the root, each with its mapping and index, cut the same way at its last checkpoint
-- with parents[''] at most C: a namespace with task ids ('node:<task_id>', ':' in it) that
-- has a checkpoint of C's step (parents[''] = C), such as a subgraph interrupted in that
-- step, which so resumes in the new thread where it stopped instead of running again; and a
-- persistent one (a subgraph compiled with checkpointer=True: a namespace without task ids,
-- no ':', whose history spans steps) that has a checkpoint of C's step or an earlier one.
-- Left out: task namespaces of earlier steps (finished; LangGraph does not read them when it
-- resumes at C), namespaces only of later steps, and another tenant's (as copy_thread leaves
-- those out). Cost: one fork_channel (constant in the history's length, a few locks) per
-- namespace forked, so per subgraph of C's step and persistent subgraph, not per earlier
-- step; choosing them reads, without locks, the mappings of the thread's namespaces and the
-- checkpoint index rows of its subgraph namespaces. Every tool execution completed by a cut
-- (every durable tool call of the checkpoint's step, since the next step starts after it
-- ends) replays in the new thread; p_tool_policies is fork_channel's (replay, live or block
-- per tool name), for every namespace. Returns the root namespace's fork.
-- Raises: AC400 bad argument (checkpoint_ns other than ''), AC404 unknown thread or
-- checkpoint (another tenant's thread is unknown: the same error, whether the checkpoint
-- exists there or not), AC409 the new thread already exists.
create or replace function actae.langgraph_fork_thread(
    p_thread_id text,
    p_checkpoint_ns text,
    p_checkpoint_id text,
    p_new_thread_id text,
    p_tool_policies jsonb default null
) returns actae.fork_result
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_channel_id text;
    v_row actae.langgraph_checkpoints;
    v_map actae.langgraph_threads;
    v_target_id text;
    v_cut bigint;
    v_fork actae.fork_result;
    v_roles oid [];
begin
    perform actae._langgraph_check_thread(p_thread_id, p_checkpoint_ns);
    if p_checkpoint_ns <> '' then
        perform actae._raise(
            'AC400',
            'checkpoint_ns must be '''': a thread is forked at a checkpoint of its root'
            || ' namespace, and its subgraphs'' namespaces come with it',
            jsonb_build_object('argument', 'checkpoint_ns', 'checkpoint_ns', p_checkpoint_ns)
        );
    end if;
    perform actae._check_text(p_checkpoint_id, 'checkpoint_id', 100);
    perform actae._check_text(p_new_thread_id, 'new_thread_id', 1024);
    v_channel_id := actae._langgraph_channel(p_thread_id, p_checkpoint_ns, false);
    -- Another tenant's thread is one without that checkpoint: the same error either way.
    if v_channel_id is not null and actae._owns_channel(v_channel_id) then
        select k.* into v_row from actae.langgraph_checkpoints as k
        where k.channel_id = v_channel_id and k.checkpoint_id = p_checkpoint_id;
    end if;
    if v_row.checkpoint_id is null then
        perform actae._raise(
            'AC404',
            format('thread %s has no checkpoint %s in namespace %L', p_thread_id,
                p_checkpoint_id, p_checkpoint_ns),
            jsonb_build_object('thread_id', p_thread_id, 'checkpoint_ns', p_checkpoint_ns,
                'checkpoint_id', p_checkpoint_id)
        );
    end if;
    perform actae._langgraph_require_new_thread(p_new_thread_id, 'new_thread_id');
    perform actae._lock_channel(v_channel_id, false);
    v_cut := actae._langgraph_fork_cut(v_channel_id, v_row);
    v_target_id := actae._langgraph_channel(p_new_thread_id, p_checkpoint_ns, true);
    v_fork := actae.fork_channel(v_channel_id, v_cut, v_target_id, null, p_tool_policies);
    perform actae._langgraph_copy_index(v_channel_id, v_target_id, v_cut);
    -- The caller's subgraph namespaces needed to resume at the checkpoint, in one query
    -- (tenants as in langgraph_delete_thread; on Citus each exists is pushed down to the
    -- shards, co-located on channel_id).
    v_roles := actae._member_of();
    for v_map in
        select t.* from actae.langgraph_threads as t
        where t.thread_id = p_thread_id and t.checkpoint_ns <> ''
            and (v_roles is null or exists (
                select from actae.channels as c
                where c.channel_id = t.channel_id and c.tenant = any(v_roles)
            ))
            and exists (
                select from actae.langgraph_checkpoints as k
                where k.channel_id = t.channel_id and case
                    when strpos(t.checkpoint_ns, ':') = 0
                        then (k.metadata -> 'parents' ->> '') <= p_checkpoint_id
                    else (k.metadata -> 'parents' ->> '') = p_checkpoint_id
                end
            )
        order by t.checkpoint_ns
    loop
        perform actae._lock_channel(v_map.channel_id, false);
        select k.* into v_row from actae.langgraph_checkpoints as k
        where k.channel_id = v_map.channel_id
            and (k.metadata -> 'parents' ->> '') <= p_checkpoint_id
        order by k.checkpoint_id desc
        limit 1;
        continue when not found;
        v_cut := actae._langgraph_fork_cut(v_map.channel_id, v_row);
        v_target_id := actae._langgraph_channel(p_new_thread_id, v_map.checkpoint_ns, true);
        perform actae.fork_channel(v_map.channel_id, v_cut, v_target_id, null, p_tool_policies);
        perform actae._langgraph_copy_index(v_map.channel_id, v_target_id, v_cut);
    end loop;
    return v_fork;
end;
$$;

-- actae.langgraph_prune — for each thread: 'keep_latest' forgets every checkpoint but the
-- latest of each namespace (and the pending writes of those it forgets; the kept one's
-- parent_checkpoint_id is cleared when its parent goes), 'delete' forgets the threads
-- (langgraph_delete_thread). Forgotten checkpoints leave LangGraph's view; their events
-- and snapshots stay in the channel's history (append-only, hash-chained) until the thread
-- is deleted or the channel is purged.
-- Returns the number of checkpoints forgotten (for 'delete': of namespaces).
-- Raises: AC400 thread_ids null or strategy not keep_latest / delete.
create or replace function actae.langgraph_prune(
    p_thread_ids text[],
    p_strategy text default 'keep_latest'
) returns integer
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_map actae.langgraph_threads;
    v_keep actae.langgraph_checkpoints;
    v_thread_id text;
    v_count integer := 0;
    v_deleted integer;
    v_roles oid [] := actae._member_of();
begin
    perform actae._require(p_thread_ids is null, 'thread_ids');
    if p_strategy is null or p_strategy not in ('keep_latest', 'delete') then
        perform actae._raise(
            'AC400', 'strategy must be keep_latest or delete',
            jsonb_build_object('argument', 'strategy', 'strategy', p_strategy)
        );
    end if;
    if p_strategy = 'delete' then
        foreach v_thread_id in array p_thread_ids loop
            v_count := v_count + actae.langgraph_delete_thread(v_thread_id);
        end loop;
        return v_count;
    end if;
    for v_map in
        select t.* from actae.langgraph_threads as t
        where t.thread_id = any(p_thread_ids) and (v_roles is null or exists (
            select from actae.channels as c
            where c.channel_id = t.channel_id and c.tenant = any(v_roles)
        ))
        order by t.thread_id, t.checkpoint_ns
    loop
        select k.* into v_keep from actae.langgraph_checkpoints as k
        where k.channel_id = v_map.channel_id
        order by k.checkpoint_id desc
        limit 1
        for update;
        continue when not found;
        delete from actae.langgraph_writes as w
        where w.channel_id = v_map.channel_id and w.checkpoint_id in (
            select k.checkpoint_id from actae.langgraph_checkpoints as k
            where k.channel_id = v_map.channel_id and k.checkpoint_id <> v_keep.checkpoint_id
        );
        delete from actae.langgraph_checkpoints as k
        where k.channel_id = v_map.channel_id and k.checkpoint_id <> v_keep.checkpoint_id;
        get diagnostics v_deleted = row_count;
        v_count := v_count + v_deleted;
        update actae.langgraph_checkpoints as k set parent_checkpoint_id = null
        where k.channel_id = v_map.channel_id and k.checkpoint_id = v_keep.checkpoint_id
            and k.parent_checkpoint_id is not null;
    end loop;
    return v_count;
end;
$$;

-- actae.langgraph_delete_for_runs — forget every checkpoint whose metadata run_id is one
-- of p_run_ids, in every thread, with its pending writes. As for prune, the events and
-- snapshots stay in the channels' history. Returns the number of checkpoints forgotten.
-- Raises: AC400 run_ids null.
create or replace function actae.langgraph_delete_for_runs(
    p_run_ids text[]
) returns integer
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_count integer;
    v_roles oid [] := actae._member_of();
begin
    perform actae._require(p_run_ids is null, 'run_ids');
    with doomed as (
        delete from actae.langgraph_checkpoints as k
        where k.metadata ? 'run_id' and (k.metadata ->> 'run_id') = any(p_run_ids)
            and (v_roles is null or exists (
                select from actae.channels as c
                where c.channel_id = k.channel_id and c.tenant = any(v_roles)
            ))
        returning k.channel_id, k.checkpoint_id
    ),

    writes as (
        delete from actae.langgraph_writes as w
        using doomed as d
        where w.channel_id = d.channel_id and w.checkpoint_id = d.checkpoint_id
        returning 1
    )

    select count(*) into v_count from doomed;
    return v_count;
end;
$$;

-- actae.langgraph_channel — the channel of a thread namespace, created (empty) when it does
-- not exist yet: where durable tools of the thread record their executions, so a copied or
-- forked thread inherits them. A thread namespace a concurrent langgraph_delete_thread is
-- deleting gets a new channel once the delete commits (never the deleted one).
-- Raises: AC400 bad argument, AC404 another tenant's thread (naming the channel the
-- caller's namespace would get: 'langgraph:<thread_id>[:<checkpoint_ns>]').
create or replace function actae.langgraph_channel(
    p_thread_id text,
    p_checkpoint_ns text default ''
) returns text
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
begin
    perform actae._langgraph_check_thread(p_thread_id, p_checkpoint_ns);
    return actae._langgraph_namespace_channel(p_thread_id, p_checkpoint_ns);
end;
$$;
