-- 0022_tool_policies_and_key_ttl: a fork's tool_policies is exactly an object of tool names
-- to one of the strings replay, live or block; a stored key_ttl has no negative part.
--
-- actae._tool_policies_valid (0006), which fork_channel and the domain actae.tool_policies
-- (channels.tool_policies) both use, tested the values with a lax jsonpath, `$.* ? (...)`,
-- and a lax filter unwraps arrays: {"charge": ["block"]} passed as a policy, and so did
-- {"charge": []} and {"charge": ["block", "live"]}. The claim reads the policy as text
-- (tool_policies ->> tool_name), which for an array is '["block"]': neither live nor block,
-- so the tool replayed and ran, and a fork that asked to block a charge charged again.
-- Tool names (the keys) were not checked either: "" or a 300-byte name was stored, a
-- policy no claim can match (tool_name is 1 to _limit('tool_name') bytes).
--
-- * actae._tool_policies_valid is redefined: true when the value is a JSON object whose
--   every key is 1 to actae._limit('tool_name') bytes and whose every value is one of the
--   JSON strings "replay", "live", "block" (jsonb equality: an array is never equal to a
--   string); null for null (the caller decides: a null column, no policies). PL/pgSQL,
--   since measuring a key in bytes takes a query over the keys, and a SQL function with a
--   query in it is not inlined but planned anew on every call; PL/pgSQL keeps its plan for
--   the session, and returns at once for the null of a channel without policies (every
--   new channel is checked). The bound is the literal 256, _limit('tool_name'): this
--   migration checks existing rows, and a database upgraded from before 0006 has no
--   actae._limit yet (sql/00_helpers.sql is loaded after the migrations). Its first bytes
--   called actae._limit('tool_name') there; migration 0024 re-creates the function for
--   the databases that applied them.
-- * Existing rows. The API could only have written arrays of those three strings (the lax
--   filter checked each element) and keys of any length. Each such channel is rewritten so
--   that it says what the caller asked for where that is unambiguous, and otherwise what
--   the fork actually did:
--     - an array whose elements are all the same policy (["block"], ["live", "live"])
--       becomes that policy: the caller's evident intent, now enforced from the next claim
--       on (a block stops the next claim that would run the tool; an inherited result
--       still replays);
--     - an empty array, or an array of different policies (["block", "live"]), is removed:
--       there is no one policy to keep, and removed it means replay, what such an entry
--       has done so far;
--     - a key that is no tool name (empty, or longer than 256 bytes, _limit('tool_name'))
--       is removed: no claim could ever match it, so nothing changes.
--   Only channels whose policies the new rule refuses are written.
-- * The domain's constraint is dropped and added again (same name, same expression). That
--   validates every stored row against the new rule, and it is what makes sessions already
--   connected use the new rule: a backend caches a domain's check expression with the old
--   SQL function inlined into it, and only a change of the constraint invalidates that
--   cache (a replaced function does not). ADD CONSTRAINT scans actae.channels under a SHARE
--   lock: writes that create channels wait for the scan.
-- * key_ttl: set_key_ttl compared the interval with its bounds (1 second to 100 years), and
--   PostgreSQL compares intervals by one total (a month as 30 days): '1000000 years
--   -359999000 days' compared as about 2 years 9 months and was stored, and every purge
--   (of any channel) then failed with 22008 timestamp out of range once that channel had
--   a finished key. set_key_ttl now refuses an interval with a negative part
--   (actae._interval_has_negative_part, sql/30_admin.sql). A stored key_ttl with one is
--   replaced by justify_interval(key_ttl): the same total (so still within the bounds it
--   was checked against), its parts of one sign; the finished keys' retain_until stamps
--   are left as they are.
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

-- The channels the new rule refuses, with their policies rewritten as described above. An
-- array whose elements all equal its first is that policy; 256 is _limit('tool_name') (this
-- runs before sql/00_helpers.sql on a fresh database).
with entries as (
    select
        c.channel_id,
        e.tool_name,
        e.value,
        case
            when
                pg_catalog.jsonb_typeof(e.value) = 'array'
                and not pg_catalog.jsonb_path_exists(e.value, 'strict $[*] ? (@ != $[0])')
                then e.value -> 0
            else e.value
        end as policy
    from actae.channels as c
    cross join lateral pg_catalog.jsonb_each(c.tool_policies) as e (tool_name, value)
    where pg_catalog.jsonb_typeof(c.tool_policies) = 'object'
),

fixed as (
    select
        n.channel_id,
        coalesce(
            pg_catalog.jsonb_object_agg(n.tool_name, n.policy) filter (
                where pg_catalog.octet_length(n.tool_name) between 1 and 256
                and n.policy in ('"replay"'::jsonb, '"live"'::jsonb, '"block"'::jsonb)
            ),
            '{}'::jsonb
        ) as tool_policies
    from entries as n
    group by n.channel_id
    having bool_or(
        pg_catalog.octet_length(n.tool_name) not between 1 and 256
        or n.value not in ('"replay"'::jsonb, '"live"'::jsonb, '"block"'::jsonb)
    )
)

update actae.channels as c set tool_policies = f.tool_policies
from fixed as f
where c.channel_id = f.channel_id;

alter domain actae.tool_policies drop constraint tool_policies_check;
alter domain actae.tool_policies
add constraint tool_policies_check check (actae._tool_policies_valid(value));

update actae.channels as c set key_ttl = pg_catalog.justify_interval(c.key_ttl)
where
    extract(year from c.key_ttl) < 0 or extract(month from c.key_ttl) < 0
    or extract(day from c.key_ttl) < 0 or extract(hour from c.key_ttl) < 0
    or extract(minute from c.key_ttl) < 0 or extract(second from c.key_ttl) < 0;
