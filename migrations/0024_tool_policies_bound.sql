-- 0024_tool_policies_bound: actae._tool_policies_valid bounds tool names by the literal 256.
--
-- Migration 0022 first shipped this function calling actae._limit('tool_name'), which
-- sql/00_helpers.sql creates after the migrations: a database upgraded from a level before
-- 0006 (no _limit yet) holding a fork with tool policies could not pass 0022, whose new
-- domain constraint checks every stored row. 0022 now says 256 itself (_limit('tool_name')
-- is 256, SPEC section 3a), and its first bytes stay accepted (actae.migrate's
-- _EQUIVALENT_BYTES). This re-creates the function as 0022 now does for the databases that
-- applied those first bytes, so every database ends with the same function. Same result
-- for every value; no row is read, and the domain's constraint calls the function by oid
-- (PL/pgSQL is never inlined), so no session keeps the old body. Re-runnable.
create or replace function actae._tool_policies_valid(
    p_policies jsonb
) returns boolean
language plpgsql
immutable
as $$
begin
    if p_policies is null then
        return null;
    end if;
    return pg_catalog.jsonb_typeof(p_policies) = 'object'
        and not exists (
            select from pg_catalog.jsonb_each(p_policies) as e (tool_name, policy)
            where pg_catalog.octet_length(e.tool_name)
                not between 1 and 256
                or e.policy not in ('"replay"'::jsonb, '"live"'::jsonb, '"block"'::jsonb)
        );
end;
$$;

alter function actae._tool_policies_valid(jsonb) owner to actae_owner;
