-- Internal helpers. Names start with "_"; actae_agent and actae_auditor cannot call them.
-- They run only inside the API functions, which are SECURITY DEFINER with search_path
-- pinned to pg_catalog, pg_temp, and inherit that setting; they carry no SET clause of their
-- own because one would save and restore the setting on every call of the hot path.

-- actae._now() (the database clock every function reads) and actae._tool_policies_valid
-- are created by migration 0006: a column default and a CHECK constraint depend on them.

-- actae._set_test_clock — for tests only: make actae._now() run p_offset ahead of the real
-- clock (behind when negative; null or zero puts it back). Lease tests move time with it
-- instead of sleeping.
-- Guarantees: only the owner of actae._now() (actae_owner) or a superuser can move the
-- clock: this redefines that function and runs with the caller's rights (no grant to any
-- role), so an agent cannot move time. Every session sees the new clock once the caller's
-- transaction commits; a rollback undoes it.
create or replace function actae._set_test_clock(
    p_offset interval
) returns void
language plpgsql
volatile
as $$
begin
    execute format(
        'create or replace function actae._now() returns timestamptz language sql volatile'
        ' as %L',
        case
            when coalesce(p_offset, interval '0') = interval '0'
                then 'select pg_catalog.clock_timestamp();'
            else format('select pg_catalog.clock_timestamp() + %L::interval;', p_offset)
        end
    );
end;
$$;

-- actae._limit — the limit of an argument (SPEC section 3a), looked up by the argument's
-- name: the most bytes of a text or JSON argument, or the largest value of a number. The
-- one place Actae's limits are written down; null for an argument without a limit.
-- Immutable, so a call with a constant name is folded into a constant when the caller is
-- planned (the hot path pays nothing for it). PL/pgSQL, not SQL: the planner folds a
-- constant call by running the function, and a SQL function is parsed and planned anew
-- each time it runs (about 70 us of backend CPU for this CASE), while PL/pgSQL keeps its
-- compiled body for the session (a few us). A statement planned on every call (custom
-- plans, complete_executions) paid the 70 us for each _limit it contains.
create or replace function actae._limit(
    p_argument text
) returns bigint
language plpgsql
immutable
as $$
begin
    return case
        when p_argument in (
            'channel_id', 'source_channel_id', 'new_channel_id', 'tool_name', 'event_type',
            'operation_id'
        ) then 256
        when p_argument = 'key_name' then 1024
        when p_argument in ('key_names', 'execution_ids', 'max_runs') then 1000
        when p_argument = 'reason' then 4096
        when p_argument in ('error', 'metadata') then 65536
        when p_argument in ('params', 'payload', 'result') then 1048576
        when p_argument = 'state' then 8388608
        when p_argument in ('lease_seconds', 'seconds') then 86400
        when p_argument in ('max_rows', 'max_events', 'batch_size') then 100000
        -- entries of a list or map argument, and the bytes of one dedup_fields entry
        when p_argument = 'dedup_fields' then 64
        when p_argument = 'dedup_field' then 256
        when p_argument = 'tool_policies' then 1000
        -- ancestors of a fork (its lineage): reads walk it, and every fork stores it
        when p_argument = 'fork_depth' then 100
        -- channels of one tenant watched at once (watch_channel registrations)
        when p_argument = 'watched_channels' then 1000
        -- quotas (set_quota): bigint's largest but one, as cursors (a count reaching it
        -- is still a bigint)
        when p_argument in ('max_channels', 'max_bytes', 'max_events_per_channel')
            then 9223372036854775806
        -- levels of JSON nesting: the driver (Python's json) cannot read back ~1000
        when p_argument = 'json_depth' then 512
        -- cursors and versions: one below bigint's largest, so cursor + 1 never overflows
        when p_argument in (
            'expected_cursor', 'after_cursor', 'at_cursor', 'version', 'expected_version'
        ) then 9223372036854775806
    end;
end;
$$;

-- actae._guard_key — the advisory-lock key of one of a channel's guards (p_class: the purge
-- guard 1633907809, the clock guard 1633907811): a 64-bit hash of the channel id seeded by
-- the class, for the one-key (bigint) form of the advisory-lock functions. 64 bits, not
-- hashtext's 32: a login could find a channel id of its own whose 32-bit key is that of
-- another tenant's channel (a collision of two given ids takes a fraction of a second) and
-- hold that channel's guard by leaving an append to its own channel open. Inlined where
-- called.
create or replace function actae._guard_key(
    p_class integer,
    p_channel_id text
) returns bigint
language sql
immutable
as $$
    select pg_catalog.hashtextextended(p_channel_id, p_class);
$$;

-- actae._in_flight — true for the statuses of an execution somebody may still be working
-- on ('claimed', 'in_progress'): the one definition of "in flight". Inlined where called.
create or replace function actae._in_flight(
    p_status text
) returns boolean
language sql
immutable
as $$
    select p_status in ('claimed', 'in_progress');
$$;

-- actae._not_read_committed — raise 0A000 for p_function run in a transaction that is not
-- READ COMMITTED. A completion reads the channel clock after waiting for the channel's clock
-- guard; under REPEATABLE READ or SERIALIZABLE its snapshot predates the wait, so a fork or
-- append it waited for would not be seen and a fork could inherit a completion made after
-- it. The caller tests the isolation level inline and calls this only to raise.
create or replace function actae._not_read_committed(
    p_function text
) returns void
language plpgsql
stable
as $$
begin
    perform actae._raise(
        '0A000',
        format('%s runs under READ COMMITTED only (this transaction is %s)', p_function,
            upper(current_setting('transaction_isolation'))),
        jsonb_build_object('function', p_function,
            'transaction_isolation', current_setting('transaction_isolation'))
    );
end;
$$;

-- actae._raise — raise an Actae error.
-- Guarantees: SQLSTATE is the given AC code, the message is one sentence, DETAIL is JSON.
create or replace function actae._raise(
    p_code text,
    p_message text,
    p_detail jsonb default '{}'
) returns void
language plpgsql
immutable
as $$
begin
    raise exception using
        errcode = p_code,
        message = p_message,
        detail = coalesce(p_detail, '{}'::jsonb)::text;
end;
$$;

-- actae._check_text — AC400 unless p_value is 1..p_max_bytes bytes.
-- Guarantees: the message names the argument; DETAIL carries the limit and the size.
create or replace function actae._check_text(
    p_value text,
    p_argument text,
    p_max_bytes integer
) returns void
language plpgsql
immutable
as $$
begin
    if p_value is null or octet_length(p_value) not between 1 and p_max_bytes then
        perform actae._raise(
            'AC400',
            format('%s must be 1 to %s bytes of text', p_argument, p_max_bytes),
            jsonb_build_object(
                'argument', p_argument,
                'max_bytes', p_max_bytes,
                'bytes', octet_length(p_value)
            )
        );
    end if;
end;
$$;

-- actae._check_json — AC400 when a jsonb argument is larger than p_max_bytes, or nested
-- deeper than _limit('json_depth') levels (what the driver can read back). Levels count
-- containers: 512 nested arrays or objects pass, with a scalar inside the innermost or not;
-- a 513th array or object is refused.
-- Guarantees: the size is the real one: a value passed from a compressed column is measured
-- by its text (its stored size says nothing); an uncompressed one by its binary size. Depth
-- is only walked when the value is big enough to be that deep (8 bytes a level at least)
-- or compressed. DETAIL carries sizes only, never the value.
create or replace function actae._check_json(
    p_value jsonb,
    p_argument text,
    p_max_bytes integer
) returns void
language plpgsql
immutable
as $$
declare
    v_compressed boolean := pg_column_compression(p_value) is not null;
    v_bytes bigint := pg_column_size(p_value);
begin
    if v_compressed then
        v_bytes := octet_length(p_value::text);
    end if;
    if v_bytes > p_max_bytes then
        perform actae._raise(
            'AC400',
            format('%s must be at most %s bytes of JSON', p_argument, p_max_bytes),
            jsonb_build_object(
                'argument', p_argument,
                'max_bytes', p_max_bytes,
                'bytes', v_bytes
            )
        );
    end if;
    if (v_compressed or v_bytes > 8 * actae._limit('json_depth'))
        and jsonb_path_exists(
            p_value, ('strict $.**{' || actae._limit('json_depth')::text
                || '} ? (@.type() == "object" || @.type() == "array")')::jsonpath
        ) then
        perform actae._raise(
            'AC400',
            format('%s must be JSON nested at most %s levels deep', p_argument,
                actae._limit('json_depth')),
            jsonb_build_object('argument', p_argument, 'max_depth', actae._limit('json_depth'))
        );
    end if;
end;
$$;

-- actae._execution_row — the API view of an execution row.
-- Guarantees: claim_token is shown only when p_show_token (the caller owns the lease).
-- LANGUAGE sql, so the planner inlines it into the caller's expression (a row built from
-- p_row's fields): no function call on the hot path (a replay returns through it).
create or replace function actae._execution_row(
    p_row actae.executions,
    p_outcome text,
    p_show_token boolean
) returns actae.execution_row
language sql
immutable
as $$
    select row(
        p_outcome, p_row.execution_id, p_row.channel_id, p_row.key_name, p_row.tool_name,
        p_row.status, case when p_show_token then p_row.claim_token end, p_row.fence,
        p_row.attempt, p_row.lease_expires_at, p_row.params, p_row.fingerprint, p_row.result,
        p_row.error, p_row.ambiguous, p_row.retryable, p_row.dedup_fields, p_row.lease_seconds,
        p_row.created_at, p_row.claimed_at, p_row.heartbeat_at, p_row.finished_at,
        p_row.cancel_requested_at is not null, p_row.cancel_reason
    )::actae.execution_row;
$$;

-- actae._fenced_error — explain why a fenced write (heartbeat/complete/fail) matched no row.
-- Guarantees: AC404 when the execution does not exist in channel p_channel_id (null: in no
-- channel); AC423 when p_claim_token is not the current token (checked before the status);
-- AC409 when the execution already finished.
create or replace function actae._fenced_error(
    p_execution_id uuid,
    p_claim_token uuid,
    p_action text,
    p_channel_id text
) returns void
language plpgsql
stable
as $$
declare
    v_row actae.executions;
begin
    select e.* into v_row from actae.executions as e
    where e.channel_id = p_channel_id and e.execution_id = p_execution_id;
    if not found or not actae._owns(v_row.tenant) then
        -- Another tenant's execution answers exactly as an unknown one.
        perform actae._raise(
            'AC404',
            format('execution %s does not exist', p_execution_id),
            jsonb_build_object('execution_id', p_execution_id)
        );
    end if;
    if v_row.claim_token is distinct from p_claim_token then
        perform actae._raise(
            'AC423',
            format('cannot %s execution %s: claim_token is not the current owner''s',
                p_action, p_execution_id),
            jsonb_build_object(
                'execution_id', p_execution_id, 'fence', v_row.fence,
                'attempt', v_row.attempt, 'status', v_row.status
            )
        );
    end if;
    perform actae._raise(
        'AC409',
        format('cannot %s execution %s: it is already %s', p_action, p_execution_id, v_row.status),
        jsonb_build_object(
            'execution_id', p_execution_id, 'status', v_row.status,
            'result', v_row.result, 'error', v_row.error
        )
    );
end;
$$;

-- actae._fingerprint — sha256 (hex) over the canonical jsonb text of p_params restricted to
-- p_fields (all of p_params when p_fields is null). Key order and whitespace never matter.
-- Raises: AC400 when params is not an object, a field is missing, or the list is empty.
create or replace function actae._fingerprint(
    p_params jsonb,
    p_fields text[]
) returns text
language plpgsql
immutable
as $$
declare
    v_subset jsonb;
begin
    if p_params is null or jsonb_typeof(p_params) <> 'object' then
        perform actae._raise(
            'AC400', 'params must be a JSON object',
            jsonb_build_object('argument', 'params', 'type', jsonb_typeof(p_params))
        );
    end if;
    if p_fields is null then
        v_subset := p_params;
    elsif cardinality(p_fields) = 0 or array_position(p_fields, null) is not null
        or array_position(p_fields, '') is not null then
        perform actae._raise(
            'AC400', 'dedup_fields must be null or a non-empty list of field names',
            jsonb_build_object('argument', 'dedup_fields', 'count', cardinality(p_fields))
        );
    elsif not p_params ?& p_fields then
        perform actae._raise(
            'AC400', 'every dedup_fields entry must be a key of params',
            jsonb_build_object(
                'argument', 'dedup_fields',
                'missing', to_jsonb(array(
                    select left(f.name, 64) from unnest(p_fields) as f (name)
                    where not p_params ? f.name limit 5
                )),
                'missing_count', (
                    select count(*) from unnest(p_fields) as f (name) where not p_params ? f.name
                )
            )
        );
    elsif cardinality(p_fields) = 1 then
        v_subset := jsonb_build_object(p_fields[1], p_params -> p_fields[1]);
    else
        select jsonb_object_agg(f.name, p_params -> f.name) into v_subset
        from unnest(p_fields) as f (name);
    end if;
    return encode(sha256(convert_to(v_subset::text, 'UTF8')), 'hex');
end;
$$;

-- actae._check_dedup_fields — AC400 unless p_fields is null or has at most
-- _limit('dedup_fields') entries of at most _limit('dedup_field') bytes each. Runs before
-- the list is sorted or echoed. DETAIL carries counts and sizes only.
create or replace function actae._check_dedup_fields(
    p_fields text[]
) returns void
language plpgsql
immutable
as $$
begin
    if cardinality(p_fields) > actae._limit('dedup_fields') then
        perform actae._raise(
            'AC400',
            format('dedup_fields must have at most %s entries', actae._limit('dedup_fields')),
            jsonb_build_object(
                'argument', 'dedup_fields', 'max_entries', actae._limit('dedup_fields'),
                'entries', cardinality(p_fields)
            )
        );
    end if;
    if exists (select from unnest(p_fields) as f (name)
               where octet_length(f.name) > actae._limit('dedup_field')) then
        perform actae._raise(
            'AC400',
            format('every dedup_fields entry must be at most %s bytes',
                actae._limit('dedup_field')),
            jsonb_build_object(
                'argument', 'dedup_fields', 'max_bytes', actae._limit('dedup_field'),
                'bytes', (select max(octet_length(f.name)) from unnest(p_fields) as f (name))
            )
        );
    end if;
end;
$$;

-- actae._plan_cache_mode — pin the plan_cache_mode of function p_function: p_mode on a
-- single node, p_citus_mode where the citus extension is installed (Citus needs the
-- arguments' values to route a statement to its shard: a generic plan there is "could not
-- create distributed plan"). 'default' removes the setting. Run by the sql/ files at migrate
-- time, after the function is (re)created.
create or replace function actae._plan_cache_mode(
    p_function regprocedure,
    p_mode text,
    p_citus_mode text
) returns void
language plpgsql
volatile
as $$
begin
    execute pg_catalog.format('alter function %s set plan_cache_mode = %s', p_function,
        case
            when exists (select from pg_catalog.pg_extension where extname = 'citus')
                then p_citus_mode
            else p_mode
        end);
end;
$$;

-- actae._require — AC400 naming p_argument when p_missing (a required argument is null).
create or replace function actae._require(
    p_missing boolean,
    p_argument text
) returns void
language plpgsql
immutable
as $$
begin
    if p_missing then
        perform actae._raise(
            'AC400', format('%s is required', p_argument),
            jsonb_build_object('argument', p_argument)
        );
    end if;
end;
$$;

-- actae._check_range — AC400 naming p_argument unless p_value is null or within bounds.
create or replace function actae._check_range(
    p_value bigint,
    p_argument text,
    p_min bigint,
    p_max bigint
) returns void
language plpgsql
immutable
as $$
begin
    if p_value not between p_min and p_max then
        perform actae._raise(
            'AC400', format('%s must be between %s and %s', p_argument, p_min, p_max),
            jsonb_build_object(
                'argument', p_argument, 'value', p_value, 'min', p_min, 'max', p_max
            )
        );
    end if;
end;
$$;

-- actae._check_text(value, argument) — AC400 unless p_value is 1.._limit(argument) bytes.
-- Inlined into the caller, where the limit becomes a constant.
create or replace function actae._check_text(
    p_value text,
    p_argument text
) returns void
language sql
immutable
as $$
    select actae._check_text(p_value, p_argument, actae._limit(p_argument)::integer);
$$;

-- actae._check_json(value, argument) — AC400 when p_value is larger than _limit(argument).
create or replace function actae._check_json(
    p_value jsonb,
    p_argument text
) returns void
language sql
immutable
as $$
    select actae._check_json(p_value, p_argument, actae._limit(p_argument)::integer);
$$;

-- actae._check_range(value, argument, min) — AC400 unless p_value is null or within
-- p_min.._limit(argument).
create or replace function actae._check_range(
    p_value bigint,
    p_argument text,
    p_min bigint
) returns void
language sql
immutable
as $$
    select actae._check_range(p_value, p_argument, p_min, actae._limit(p_argument));
$$;

-- actae._uuid7() (time-ordered ids: the execution_id of every new execution) is created by
-- migration 0015: the executions.execution_id column default depends on it.
