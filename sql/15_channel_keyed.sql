-- Channel-keyed per-execution calls (docs/SCALING.md).
--
-- heartbeat_execution, complete_execution, fail_execution and cancel_execution take an
-- optional last argument, channel_id. Given, every statement of the call reads and writes
-- that one channel, which on Citus is one shard (the channel is the distribution column);
-- the driver always passes it. Without it, the execution's channel is looked up by
-- execution_id first. The contract's positional signatures keep working unchanged.

-- The signatures before channel_id was added, left behind by databases migrated earlier:
-- a call with the old argument list would otherwise match two functions.
drop function if exists actae.heartbeat_execution(uuid, uuid, integer);
drop function if exists actae.complete_execution(uuid, uuid, jsonb);
drop function if exists actae.fail_execution(uuid, text, uuid, boolean);
drop function if exists actae.cancel_execution(uuid, text);
drop function if exists actae._fenced_error(uuid, uuid, text);

-- actae._execution_channel — the channel to address an execution in: p_channel_id when
-- given, else the channel holding p_execution_id (null when none does, or the id is null;
-- the caller's statements then match nothing and it reports AC404).
-- Raises: AC400 when p_channel_id is given but not 1..256 bytes.
create or replace function actae._execution_channel(
    p_channel_id text,
    p_execution_id uuid
) returns text
language plpgsql
stable
as $$
declare
    v_channel_id text;
begin
    if p_channel_id is not null then
        perform actae._check_text(p_channel_id, 'channel_id');
        return p_channel_id;
    end if;
    select e.channel_id into v_channel_id from actae.executions as e
    where e.execution_id = p_execution_id
    limit 1;
    return v_channel_id;
end;
$$;
