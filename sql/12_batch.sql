-- Batches of ledger calls: several tool calls (a model's parallel tool calls) in one round
-- trip and one transaction.
--
-- Outcomes are per element, errors are all-or-nothing. Each element behaves exactly like
-- the single call on the same arguments, made in array order inside one transaction (a key
-- that appears twice sees the first element's row, as two single calls would). The rows
-- come back one per element, in element order, each with its own outcome. When an element
-- raises, the whole call raises that element's error (same SQLSTATE, message and DETAIL,
-- with "element": its 1-based position added to DETAIL and to the message) and writes
-- nothing, so no element's outcome can be lost silently: either every element's row is
-- returned, or nothing happened and the error says which element caused it.

-- The signature before channel_id was added (a call with the old argument list would
-- otherwise match two functions).
drop function if exists actae.complete_executions(uuid[], uuid[], jsonb[]);

-- The signature before p_lower was added.
drop function if exists actae._check_batch(integer, integer, text, integer);

-- actae._check_batch — AC400 naming p_argument unless p_count (the cardinality of a
-- one-dimensional array indexed from 1, null when the array is null) is p_expected;
-- p_expected null means "any size up to the limit of p_limit_argument". p_lower is the
-- array's lower bound: elements are paired by position with the other arrays' and read
-- as element 1 .. n, so an array such as '[0:1]={a,b}' is refused, not shifted.
create or replace function actae._check_batch(
    p_count integer,
    p_dimensions integer,
    p_argument text,
    p_expected integer,
    p_lower integer
) returns void
language plpgsql
immutable
as $$
begin
    perform actae._require(p_count is null, p_argument);
    if p_count > 0 and p_dimensions <> 1 then
        perform actae._raise(
            'AC400', format('%s must be a one-dimensional array', p_argument),
            jsonb_build_object('argument', p_argument, 'dimensions', p_dimensions)
        );
    end if;
    if p_count > 0 and p_lower <> 1 then
        perform actae._raise(
            'AC400', format('%s must be an array indexed from 1, not from %s', p_argument,
                p_lower),
            jsonb_build_object('argument', p_argument, 'lower_bound', p_lower)
        );
    end if;
    if p_expected is null then
        perform actae._check_range(p_count, p_argument, 0);
    elsif p_count <> p_expected then
        perform actae._raise(
            'AC400', format('%s must have one element per call (%s), not %s', p_argument,
                p_expected, p_count),
            jsonb_build_object('argument', p_argument, 'expected', p_expected, 'count', p_count)
        );
    end if;
end;
$$;

-- actae.claim_executions — actae.claim_execution for each element, in one transaction.
-- Element i claims key p_key_names[i] for tool p_tool_names[i] with p_params[i] and
-- p_dedup_fields[i] (a JSON array of field names, or JSON/SQL null for all of params) in
-- channel p_channel_id, with the shared p_lease_seconds.
-- Guarantees: one row per element, in element order, each with the outcome the single
-- call would return at that point of the transaction; all-or-nothing on errors (see the
-- header of this file); at most 1000 elements; an empty batch returns no rows.
-- Cost: when no element has dedup_fields and the channel is not a fork, the new keys are
-- claimed by one INSERT (the set path, below); only elements whose key exists already take
-- claim_execution's statements. An empty batch checks its arguments and writes nothing (not
-- even the channel).
-- Raises: AC400 a missing or misshapen array, or an element's bad argument; an element's
-- AC409 or AC403 (DETAIL names the element). AC404 (another tenant's channel), AC429
-- (the tenant's channel quota, when the batch creates the channel) and the AC400 of a
-- login in several tenants creating it are the channel's, not an element's: raised as
-- claim_execution raises them, without an element. 0A000 as claim_execution's: an element
-- that would take ownership outside READ COMMITTED, without an element either.
create or replace function actae.claim_executions(
    p_channel_id text,
    p_key_names text[],
    p_tool_names text[],
    p_params jsonb[],
    p_dedup_fields jsonb[] default null,
    p_lease_seconds integer default 60
) returns setof actae.execution_row
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_count integer := cardinality(p_key_names);
    v_lease_seconds integer := coalesce(p_lease_seconds, 60);
    v_element integer := 0;
    v_fields jsonb;
    v_channel actae.channels;
    v_rows actae.executions[];
    v_claimed bigint;
    v_now timestamptz;
    v_state text;
    v_message text;
    v_detail text;
begin
    -- The shape checks inline; the helpers run (and raise) only when one fails.
    if (v_count between 1 and actae._limit('key_names') and array_ndims(p_key_names) = 1
        and array_lower(p_key_names, 1) = 1
        and cardinality(p_tool_names) = v_count and array_ndims(p_tool_names) = 1
        and array_lower(p_tool_names, 1) = 1
        and cardinality(p_params) = v_count and array_ndims(p_params) = 1
        and array_lower(p_params, 1) = 1
        and coalesce(cardinality(p_dedup_fields) = v_count and array_ndims(p_dedup_fields) = 1
            and array_lower(p_dedup_fields, 1) = 1, true)) is not true then
        perform actae._check_batch(v_count, array_ndims(p_key_names), 'key_names', null,
            array_lower(p_key_names, 1));
        perform actae._check_batch(cardinality(p_tool_names), array_ndims(p_tool_names),
            'tool_names', v_count, array_lower(p_tool_names, 1));
        perform actae._check_batch(cardinality(p_params), array_ndims(p_params), 'params',
            v_count, array_lower(p_params, 1));
        if p_dedup_fields is not null then
            perform actae._check_batch(cardinality(p_dedup_fields),
                array_ndims(p_dedup_fields), 'dedup_fields', v_count,
                array_lower(p_dedup_fields, 1));
        end if;
    end if;
    if (octet_length(p_channel_id) between 1 and actae._limit('channel_id')) is not true then
        -- The channel's argument error, without an element (claim_execution would name
        -- element 1), before any element's.
        perform actae._check_text(p_channel_id, 'channel_id');
    end if;
    if v_count = 0 then
        -- An empty batch claims nothing and writes nothing: no channel is created (nor
        -- counted against the tenant's quota) for it.
        perform actae._check_range(v_lease_seconds, 'lease_seconds', 1);
        return;
    end if;
    -- The set path: no element with dedup_fields, every argument within its limits and
    -- no key twice (checked in one statement), in a channel that is not a fork. One INSERT claims
    -- every new key; an element whose key exists already (the INSERT skips it) is then
    -- claimed by claim_execution in the loop below, in element order, exactly as when
    -- the set path does not apply. Keys are distinct, so claiming the new ones first
    -- changes no element's outcome. The purge guard, channel creation and tenant check
    -- are claim_execution's, done once; an error there is the channel's (no element).
    -- Outside the block below: a block with an exception clause is a subtransaction, and
    -- a batch whose every key is new needs none.
    if coalesce((select bool_and(f.value is null or jsonb_typeof(f.value) = 'null')
            from unnest(p_dedup_fields) as f (value)), true)
        and octet_length(p_channel_id) between 1 and actae._limit('channel_id')
        and v_lease_seconds between 1 and actae._limit('lease_seconds')
        -- coalesce: bool_and skips a null, and a null element (a null key, tool or
        -- params) must take the loop, where claim_execution names its error.
        and (select bool_and(coalesce(
                    octet_length(u.k) between 1 and actae._limit('key_name')
                    and octet_length(u.t) between 1 and actae._limit('tool_name')
                    and jsonb_typeof(u.p) = 'object'
                    and pg_column_size(u.p) <= 8 * actae._limit('json_depth')
                    and pg_column_compression(u.p) is null, false))
                and count(distinct u.k) = count(*)
            from unnest(p_key_names, p_tool_names, p_params) as u (k, t, p)) then
        v_channel := actae._claim_channel(p_channel_id);
        if v_channel.parent_channel_id is null and actae._owns(v_channel.tenant) then
            v_now := actae._now();
            with inserted as (
                insert into actae.executions as e (
                    channel_id, key_name, execution_id, tool_name, params, fingerprint,
                    status, claim_token, fence, attempt, lease_seconds, lease_expires_at,
                    created_at, claimed_at, tenant
                )
                select p_channel_id, u.k, actae._uuid7(), u.t, u.p,
                    encode(sha256(convert_to(u.p::text, 'UTF8')), 'hex'), 'claimed',
                    gen_random_uuid(), 1, 1, v_lease_seconds,
                    v_now + make_interval(secs => v_lease_seconds), v_now, v_now,
                    v_channel.tenant
                from unnest(p_key_names, p_tool_names, p_params) as u (k, t, p)
                on conflict (channel_id, key_name) do nothing
                returning e.*
            )
            -- The cast of the CTE's row is resolved field by field (no text round trip).
            select array_agg(i::actae.executions order by u.n), count(i.key_name)
            into v_rows, v_claimed
            from unnest(p_key_names) with ordinality as u (k, n)
            left join inserted as i on u.k = i.key_name;
            if v_claimed > 0 and current_setting('transaction_isolation') <> 'read committed'
            then
                -- As claim_execution: raising undoes the INSERT (nothing is written).
                perform actae._not_read_committed('a claim that takes ownership');
            end if;
            if v_claimed = v_count then
                for i in 1 .. v_count loop
                    return next actae._execution_row(v_rows[i], 'claimed', true);
                end loop;
                return;
            end if;
        end if;
    end if;
    if v_channel.channel_id is null
        and octet_length(p_channel_id) between 1 and actae._limit('channel_id') then
        -- The channel's own errors (a login in several tenants creating it, its quota) are
        -- raised here, without an element, on this path too.
        v_channel := actae._claim_channel(p_channel_id);
    end if;
    begin
        for i in 1 .. v_count loop
            v_element := i;
            if (v_rows[i]).execution_id is not null then
                return next actae._execution_row(v_rows[i], 'claimed', true);
                continue;
            end if;
            v_fields := p_dedup_fields[i];
            if jsonb_typeof(v_fields) not in ('array', 'null') then
                perform actae._raise(
                    'AC400', 'dedup_fields must hold a JSON array of field names or null',
                    jsonb_build_object('argument', 'dedup_fields',
                        'type', jsonb_typeof(v_fields))
                );
            end if;
            return next actae.claim_execution(
                p_channel_id, p_key_names[i], p_tool_names[i], p_params[i],
                case when jsonb_typeof(v_fields) = 'array' then
                    array(select jsonb_array_elements_text(v_fields))
                end,
                p_lease_seconds
            );
        end loop;
    exception when sqlstate 'AC400' or sqlstate 'AC403' or sqlstate 'AC409' then
        get stacked diagnostics
            v_state = returned_sqlstate, v_message = message_text, v_detail = pg_exception_detail;
        perform actae._raise_for_element(v_state, v_message, v_detail, v_element);
    end;
end;
$$;

-- actae.complete_executions — actae.complete_execution for each element, in one
-- transaction: element i completes p_execution_ids[i], fenced by p_claim_tokens[i], with
-- p_results[i] (SQL NULL, or a null p_results, store JSON null).
-- Guarantees: one row per element, in element order; all-or-nothing on errors (see the
-- header of this file): when one element is fenced out, no result of the batch is recorded
-- and the error names the element, so the caller completes the others again (their tokens
-- are still current; a repeat with the same result is a no-op success); at most 1000
-- elements; an empty batch returns no rows.
-- p_channel_id, when given, must be every element's channel (an element of another
-- channel is AC404, as for complete_execution): the batch then reads that one channel
-- (one shard on Citus) and updates each row by its key in the common case. Null: each
-- element is looked up by execution_id, one complete_execution at a time.
-- Raises: AC400 a missing or misshapen array, or an element's bad argument; an element's
-- AC404, AC423 or AC409 (DETAIL names the element); 0A000 in a transaction that is not
-- READ COMMITTED (as complete_execution).
create or replace function actae.complete_executions(
    p_execution_ids uuid[],
    p_claim_tokens uuid[],
    p_results jsonb[] default null,
    p_channel_id text default null
) returns setof actae.execution_row
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_count integer := cardinality(p_execution_ids);
    v_element integer := 0;
    v_rows actae.executions[];
    v_row actae.executions;
    v_clock bigint;
    v_now timestamptz;
    v_state text;
    v_message text;
    v_detail text;
begin
    -- The shape checks inline; the helpers run (and raise) only when one fails.
    if (v_count between 1 and actae._limit('execution_ids') and array_ndims(p_execution_ids) = 1
        and array_lower(p_execution_ids, 1) = 1
        and cardinality(p_claim_tokens) = v_count and array_ndims(p_claim_tokens) = 1
        and array_lower(p_claim_tokens, 1) = 1
        and coalesce(cardinality(p_results) = v_count and array_ndims(p_results) = 1
            and array_lower(p_results, 1) = 1, true)
    ) is not true then
        perform actae._check_batch(v_count, array_ndims(p_execution_ids), 'execution_ids',
            null, array_lower(p_execution_ids, 1));
        perform actae._check_batch(cardinality(p_claim_tokens), array_ndims(p_claim_tokens),
            'claim_tokens', v_count, array_lower(p_claim_tokens, 1));
        if p_results is not null then
            perform actae._check_batch(cardinality(p_results), array_ndims(p_results),
                'results', v_count, array_lower(p_results, 1));
        end if;
    end if;
    if p_channel_id is not null
        and (octet_length(p_channel_id) between 1 and actae._limit('channel_id')) is not true
    then
        -- As claim_executions: the channel's argument error, without an element.
        perform actae._check_text(p_channel_id, 'channel_id');
    end if;
    -- The set path, when p_channel_id is given, every element's arguments are within
    -- their limits and no execution id appears twice (checked in one statement): behind
    -- the channel's clock guard (as complete_execution), one UPDATE per element by its
    -- key (execution_id, channel_id), in element order, until one finds no row in
    -- flight with its token. When they completed them all, in a channel of the
    -- caller's tenant, those are the rows. Otherwise every element goes through
    -- complete_execution in the loop below, in element order: an element already
    -- completed here is then a repeat with the same token and result (a no-op success),
    -- and any other meets the single call's outcome or error. An error undoes it all
    -- (the statement fails). Outside the block below, which is a subtransaction.
    if octet_length(p_channel_id) between 1 and actae._limit('channel_id')
        and (select bool_and(u.id is not null and u.token is not null
                and pg_column_size(coalesce(u.result, 'null'::jsonb))
                    <= 8 * actae._limit('json_depth')
                and pg_column_compression(u.result) is null)
                and count(distinct u.id) = count(*)
            from unnest(p_execution_ids, p_claim_tokens, p_results)
                as u (id, token, result)) then
        if current_setting('transaction_isolation') <> 'read committed' then
            perform actae._not_read_committed('complete_executions');
        end if;
        perform pg_advisory_xact_lock_shared(actae._guard_key(1633907811, p_channel_id));
        v_now := actae._now();
        -- Read after the lock (a statement started after it): exact until commit.
        select c.clock into v_clock from actae.channels as c
        where c.channel_id = p_channel_id;
        for i in 1 .. v_count loop
            update actae.executions as e set
                status = 'completed',
                result = coalesce(p_results[i], 'null'::jsonb),
                finished_at = v_now,
                completed_clock = v_clock,
                written_by = default
            where e.channel_id = p_channel_id and e.execution_id = p_execution_ids[i]
                and e.claim_token = p_claim_tokens[i]
                and actae._in_flight(e.status)
            returning e.* into v_row;
            exit when not found;
            v_rows[i] := v_row;
        end loop;
        if cardinality(v_rows) = v_count and actae._owns((v_rows[1]).tenant) then
            for i in 1 .. v_count loop
                return next actae._execution_row(v_rows[i], null, true);
            end loop;
            return;
        end if;
    end if;
    begin
        for i in 1 .. v_count loop
            v_element := i;
            return next actae.complete_execution(
                p_execution_ids[i], p_claim_tokens[i], p_results[i], p_channel_id
            );
        end loop;
    exception when sqlstate 'AC400' or sqlstate 'AC404' or sqlstate 'AC409'
        or sqlstate 'AC423' then
        get stacked diagnostics
            v_state = returned_sqlstate, v_message = message_text, v_detail = pg_exception_detail;
        perform actae._raise_for_element(v_state, v_message, v_detail, v_element);
    end;
end;
$$;

-- actae._raise_for_element — re-raise an element's Actae error from a batch: the same
-- SQLSTATE, the message prefixed with the element's 1-based position, and DETAIL (a JSON
-- object) with "element" added.
create or replace function actae._raise_for_element(
    p_state text,
    p_message text,
    p_detail text,
    p_element integer
) returns void
language plpgsql
immutable
as $$
begin
    perform actae._raise(
        p_state,
        format('element %s: %s', p_element, p_message),
        coalesce(nullif(p_detail, '')::jsonb, '{}'::jsonb)
        || jsonb_build_object('element', p_element)
    );
end;
$$;

-- Generic plans for the batch functions' statements: with array arguments the plan cache
-- otherwise keeps planning them anew on every call (custom plans; under force_custom_plan
-- PL/pgSQL plans each of its expressions again too), most of a batch completion's server
-- time. None of them reads more than its keys whatever the table's size: complete_executions
-- updates one row per statement by both columns of the (execution_id, channel_id) index,
-- the plan even a generic plan made on an empty table chooses
-- (tests/python/integration/test_plans.py). Not on
-- Citus, which needs the arguments' values to route a statement to its shard (a generic
-- plan there is "could not create distributed plan"): there claim_executions keeps the
-- default and complete_executions custom plans, as before.
select actae._plan_cache_mode(
    'actae.claim_executions(text, text[], text[], jsonb[], jsonb[], integer)',
    'force_generic_plan', 'default'
);
select actae._plan_cache_mode(
    'actae.complete_executions(uuid[], uuid[], jsonb[], text)',
    'force_generic_plan', 'force_custom_plan'
);
