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

-- actae._check_batch — AC400 naming p_argument unless p_count (the cardinality of a
-- one-dimensional array, null when the array is null) is p_expected; p_expected null means
-- "any size up to the limit of p_limit_argument".
create or replace function actae._check_batch(
    p_count integer,
    p_dimensions integer,
    p_argument text,
    p_expected integer
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
-- Raises: AC400 a missing or misshapen array, or an element's bad argument; an element's
-- AC409 or AC403 (DETAIL names the element).
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
    v_element integer := 0;
    v_fields jsonb;
    v_state text;
    v_message text;
    v_detail text;
begin
    perform actae._check_batch(v_count, array_ndims(p_key_names), 'key_names', null);
    perform actae._check_batch(cardinality(p_tool_names), array_ndims(p_tool_names),
        'tool_names', v_count);
    perform actae._check_batch(cardinality(p_params), array_ndims(p_params), 'params',
        v_count);
    if p_dedup_fields is not null then
        perform actae._check_batch(cardinality(p_dedup_fields), array_ndims(p_dedup_fields),
            'dedup_fields', v_count);
    end if;
    begin
        for i in 1 .. v_count loop
            v_element := i;
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
-- Raises: AC400 a missing or misshapen array, or an element's bad argument; an element's
-- AC404, AC423 or AC409 (DETAIL names the element).
create or replace function actae.complete_executions(
    p_execution_ids uuid[],
    p_claim_tokens uuid[],
    p_results jsonb[] default null
) returns setof actae.execution_row
language plpgsql
volatile
security definer
set search_path = pg_catalog, pg_temp
as $$
declare
    v_count integer := cardinality(p_execution_ids);
    v_element integer := 0;
    v_state text;
    v_message text;
    v_detail text;
begin
    perform actae._check_batch(v_count, array_ndims(p_execution_ids), 'execution_ids', null);
    perform actae._check_batch(cardinality(p_claim_tokens), array_ndims(p_claim_tokens),
        'claim_tokens', v_count);
    if p_results is not null then
        perform actae._check_batch(cardinality(p_results), array_ndims(p_results), 'results',
            v_count);
    end if;
    begin
        for i in 1 .. v_count loop
            v_element := i;
            return next actae.complete_execution(
                p_execution_ids[i], p_claim_tokens[i], p_results[i]
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
