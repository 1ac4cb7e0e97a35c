-- 0009_execution_traces: which trace span ran each attempt of an execution.
--
-- With OpenTelemetry on (actae.otel), the worker that owns an attempt stores the W3C
-- traceparent of the span around its tool (actae.set_execution_trace), so a later replay of
-- the result, a reclaim after a crash or a fork can link to the span that did the work
-- (actae.get_execution_trace). One row per attempt (fence); nothing is written when tracing
-- is off. The primary key leads with channel_id like every Actae table; rows go with their
-- execution when it is deleted (purge).
create table actae.execution_traces (
    channel_id text not null,
    execution_id uuid not null,
    fence bigint not null,
    traceparent text not null,
    recorded_at timestamptz not null,
    primary key (channel_id, execution_id, fence)
);
create index execution_traces_execution_id_idx on actae.execution_traces (execution_id);
alter table actae.execution_traces owner to actae_owner;
grant select on actae.execution_traces to actae_auditor;

-- Delete the traces of deleted executions, one statement at a time (purge deletes in bulk).
-- A private helper like the others: not SECURITY DEFINER (it runs as whoever deletes the
-- executions, i.e. actae_owner inside purge) and fully qualified throughout.
create function actae._forget_execution_traces() returns trigger
language plpgsql
as $$
-- @plpgsql_check_options: oldtable = gone
begin
    delete from actae.execution_traces as t
    using gone as g
    where t.channel_id = g.channel_id and t.execution_id = g.execution_id;
    return null;
end;
$$;
alter function actae._forget_execution_traces() owner to actae_owner;

create trigger executions_forget_traces
after delete on actae.executions
referencing old table as gone
for each statement execute function actae._forget_execution_traces();
