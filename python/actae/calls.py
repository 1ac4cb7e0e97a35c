"""Every SQL statement the driver sends, one builder per Actae function.

A builder validates nothing and decides nothing: it names the function's arguments, adapts
JSON, and says how to turn the result rows into models. The async and the sync client both
execute these same builders (see client.py), so the two can never drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Generic, TypeVar
from uuid import UUID

from psycopg.types.json import Jsonb

from actae.models import (
    Channel,
    Claim,
    Event,
    EventRecorded,
    Execution,
    ForkResult,
    StateSnapshot,
    Transition,
)
from actae.ops_models import LedgerStatus, LineageEntry, PurgeResult, ToolStats

T = TypeVar("T")
Row = dict[str, Any]


@dataclass(frozen=True)
class Call(Generic[T]):
    """One round trip: a statement, its parameters, and how to read its rows."""

    sql: str
    params: Mapping[str, Any]
    read: Callable[[list[Row]], T]
    conn: Any = None


def _json(value: Any) -> Jsonb | None:
    return None if value is None else Jsonb(value)


def _sql(function: str, *arguments: str) -> str:
    """``select * from actae.f(p_a => %(a)s::type, ...)`` for arguments given as 'a::type'."""
    named = ", ".join(
        f"p_{name} => %({name})s::{cast}" for name, cast in (a.split("::") for a in arguments)
    )
    return f"select * from actae.{function}({named})"


def _execution(row: Row) -> Execution:
    return Execution.model_validate(row)


def _one_execution(rows: list[Row]) -> Execution:
    return _execution(rows[0])


def _claim(rows: list[Row]) -> Claim:
    return Claim(status=rows[0]["outcome"], execution=_execution(rows[0]))


def _one(model: type[T]) -> Callable[[list[Row]], T]:
    return lambda rows: model.model_validate(rows[0])  # type: ignore[attr-defined]


def _many(model: type[T]) -> Callable[[list[Row]], list[T]]:
    return lambda rows: [model.model_validate(r) for r in rows]  # type: ignore[attr-defined]


CLAIM = _sql("claim_execution", "channel_id::text", "key_name::text", "tool_name::text",
             "params::jsonb", "dedup_fields::text[]", "lease_seconds::integer")
HEARTBEAT = _sql("heartbeat_execution", "execution_id::uuid", "claim_token::uuid",
                 "lease_seconds::integer", "channel_id::text")
COMPLETE = _sql("complete_execution", "execution_id::uuid", "claim_token::uuid", "result::jsonb",
                "channel_id::text")
FAIL = _sql("fail_execution", "execution_id::uuid", "error::text", "claim_token::uuid",
            "retryable::boolean", "channel_id::text")
GET_EXECUTION_BY_ID = _sql("get_execution", "execution_id::uuid")
GET_EXECUTION_BY_KEY = _sql("get_execution", "channel_id::text", "key_name::text")
LIST_EXECUTIONS = _sql("list_executions", "channel_id::text", "status::text",
                       "lease_expired::boolean", "max_rows::integer")
LIST_EXPIRED_LEASES = _sql("list_expired_leases", "max_rows::integer")
CREATE_CHANNEL = _sql("create_channel", "channel_id::text", "metadata::jsonb")
GET_CHANNEL = _sql("get_channel", "channel_id::text")
RECORD_EVENT = _sql("record_event", "channel_id::text", "event_type::text", "payload::jsonb",
                    "operation_id::text", "expected_cursor::bigint")
TRANSITION_STATE = _sql("transition_state", "channel_id::text", "event_type::text",
                        "payload::jsonb", "state::jsonb", "expected_version::bigint",
                        "expected_cursor::bigint", "operation_id::text")
FORK_CHANNEL = _sql("fork_channel", "source_channel_id::text", "at_cursor::bigint",
                    "new_channel_id::text", "operation_id::text", "tool_policies::jsonb")
LIST_EVENTS = _sql("list_events", "channel_id::text", "after_cursor::bigint",
                   "max_events::integer")
GET_STATE = _sql("get_state", "channel_id::text", "version::bigint", "at_cursor::bigint")
CHANNEL_TOPIC = "select actae.channel_topic(%(channel_id)s::text) as topic"
WATCH_CHANNEL = ("select actae.watch_channel(p_channel_id => %(channel_id)s::text,"
                 " p_seconds => %(seconds)s::integer) as topic")


def claim_execution(
    channel_id: str,
    key_name: str,
    tool_name: str,
    params: Mapping[str, Any],
    dedup_fields: Sequence[str] | None = None,
    lease_seconds: int = 60,
    *,
    conn: Any = None,
) -> Call[Claim]:
    """Create-or-replay one tool call: outcome claimed, replayed, reclaimed, in_progress or
    failed (``Claim.status``)."""
    return Call(CLAIM, {
        "channel_id": channel_id, "key_name": key_name, "tool_name": tool_name,
        "params": _json(params),
        "dedup_fields": None if dedup_fields is None else list(dedup_fields),
        "lease_seconds": lease_seconds,
    }, _claim, conn)


# heartbeat, complete, fail and cancel take the execution's channel_id when the caller has
# it (Execution.channel_id): every statement then reads that one channel, a single-shard
# call on Citus. Without it the channel is looked up by execution_id.

def heartbeat_execution(
    execution_id: UUID, claim_token: UUID, lease_seconds: int | None = None, *,
    channel_id: str | None = None, conn: Any = None
) -> Call[Execution]:
    """Extend the caller's lease (fenced by claim_token)."""
    return Call(HEARTBEAT, {
        "execution_id": execution_id, "claim_token": claim_token, "lease_seconds": lease_seconds,
        "channel_id": channel_id,
    }, _one_execution, conn)


def complete_execution(
    execution_id: UUID, claim_token: UUID, result: Any = None, *,
    channel_id: str | None = None, conn: Any = None
) -> Call[Execution]:
    """Record the result (fenced; repeating with the same result is a no-op)."""
    return Call(COMPLETE, {
        "execution_id": execution_id, "claim_token": claim_token, "result": _json(result),
        "channel_id": channel_id,
    }, _one_execution, conn)


def fail_execution(
    execution_id: UUID,
    error: str,
    claim_token: UUID,
    retryable: bool = True,
    *,
    channel_id: str | None = None,
    conn: Any = None,
) -> Call[Execution]:
    """Record a failed attempt (fenced); retryable lets the next claim reclaim it."""
    return Call(FAIL, {
        "execution_id": execution_id, "error": error, "claim_token": claim_token,
        "retryable": retryable, "channel_id": channel_id,
    }, _one_execution, conn)


def get_execution(
    execution_id: UUID | None = None,
    *,
    channel_id: str | None = None,
    key_name: str | None = None,
    conn: Any = None,
) -> Call[Execution]:
    """One execution, by id or by (channel_id, key_name) (inherited ones included)."""
    if execution_id is not None:
        return Call(GET_EXECUTION_BY_ID, {"execution_id": execution_id}, _one_execution, conn)
    return Call(GET_EXECUTION_BY_KEY, {"channel_id": channel_id, "key_name": key_name},
                _one_execution, conn)


def list_executions(
    channel_id: str | None = None,
    status: str | None = None,
    lease_expired: bool = False,
    max_rows: int = 100,
    *,
    conn: Any = None,
) -> Call[list[Execution]]:
    """Executions filtered by channel, lifecycle status and lapsed lease."""
    return Call(LIST_EXECUTIONS, {
        "channel_id": channel_id, "status": status, "lease_expired": lease_expired,
        "max_rows": max_rows,
    }, _many(Execution), conn)


def list_expired_leases(max_rows: int = 100, *, conn: Any = None) -> Call[list[Execution]]:
    """claimed / in_progress executions whose lease has lapsed, oldest lease first."""
    return Call(LIST_EXPIRED_LEASES, {"max_rows": max_rows}, _many(Execution), conn)


def create_channel(
    channel_id: str, metadata: Mapping[str, Any] | None = None, *, conn: Any = None
) -> Call[Channel]:
    """Create a channel explicitly (channels are also created by their first write)."""
    return Call(CREATE_CHANNEL, {"channel_id": channel_id, "metadata": _json(metadata)},
                _one(Channel), conn)


def get_channel(channel_id: str, *, conn: Any = None) -> Call[Channel]:
    """Head cursor, state version, parent, fork cursor and lineage of a channel."""
    return Call(GET_CHANNEL, {"channel_id": channel_id}, _one(Channel), conn)


def record_event(
    channel_id: str,
    event_type: str,
    payload: Any = None,
    operation_id: str | None = None,
    expected_cursor: int | None = None,
    *,
    conn: Any = None,
) -> Call[EventRecorded]:
    """Append an event at head + 1 (replayed when operation_id was used for the same event)."""
    return Call(RECORD_EVENT, {
        "channel_id": channel_id, "event_type": event_type, "payload": _json(payload),
        "operation_id": operation_id, "expected_cursor": expected_cursor,
    }, _one(EventRecorded), conn)


def transition_state(
    channel_id: str,
    event_type: str,
    payload: Any,
    state: Any,
    expected_version: int,
    expected_cursor: int | None = None,
    operation_id: str | None = None,
    *,
    conn: Any = None,
) -> Call[Transition]:
    """Append an event and state version + 1 atomically, guarded by expected_version."""
    return Call(TRANSITION_STATE, {
        "channel_id": channel_id, "event_type": event_type, "payload": _json(payload),
        "state": _json(state), "expected_version": expected_version,
        "expected_cursor": expected_cursor, "operation_id": operation_id,
    }, _one(Transition), conn)


def fork_channel(
    source_channel_id: str,
    at_cursor: int,
    new_channel_id: str | None = None,
    operation_id: str | None = None,
    tool_policies: Mapping[str, str] | None = None,
    *,
    conn: Any = None,
) -> Call[ForkResult]:
    """A new channel inheriting events 1..at_cursor, their state and completed executions."""
    return Call(FORK_CHANNEL, {
        "source_channel_id": source_channel_id, "at_cursor": at_cursor,
        "new_channel_id": new_channel_id, "operation_id": operation_id,
        "tool_policies": _json(tool_policies),
    }, _one(ForkResult), conn)


def list_events(
    channel_id: str, after_cursor: int = 0, max_events: int = 100, *, conn: Any = None
) -> Call[list[Event]]:
    """Events after after_cursor in cursor order (a fork's list includes its prefix)."""
    return Call(LIST_EVENTS, {
        "channel_id": channel_id, "after_cursor": after_cursor, "max_events": max_events,
    }, _many(Event), conn)


def get_state(
    channel_id: str,
    version: int | None = None,
    at_cursor: int | None = None,
    *,
    conn: Any = None,
) -> Call[StateSnapshot]:
    """Latest state, state at a version, or the state as of a cursor."""
    return Call(GET_STATE, {"channel_id": channel_id, "version": version, "at_cursor": at_cursor},
                _one(StateSnapshot), conn)


def channel_topic(channel_id: str, *, conn: Any = None) -> Call[str]:
    """The LISTEN topic on which a watched channel announces new cursors."""
    return Call(CHANNEL_TOPIC, {"channel_id": channel_id}, lambda rows: rows[0]["topic"], conn)


def watch_channel(channel_id: str, seconds: int = 60, *, conn: Any = None) -> Call[str]:
    """Have appends to the channel NOTIFY its topic for the next `seconds`; returns the topic.
    LISTEN first, then register, then read after your last cursor: nothing is missed."""
    return Call(WATCH_CHANNEL, {"channel_id": channel_id, "seconds": seconds},
                lambda rows: rows[0]["topic"], conn)


# Operator functions and audit views (migration 0002, sql/30_operations.sql).

CANCEL_EXECUTION = _sql("cancel_execution", "execution_id::uuid", "reason::text",
                        "channel_id::text")
CLOSE_CHANNEL = _sql("close_channel", "channel_id::text")
SET_KEY_TTL = _sql("set_key_ttl", "channel_id::text", "key_ttl::interval")
PURGE = _sql("purge", "older_than::interval", "batch_size::integer")
LEDGER_STATUS = "select * from actae.ledger_status"
TOOL_STATS = "select * from actae.tool_stats order by tool_name"
CHANNEL_LINEAGE = (
    "select * from actae.channel_lineage where channel_id = %(channel_id)s::text"
    " order by generation desc"
)


def cancel_execution(
    execution_id: UUID, reason: str, *, channel_id: str | None = None, conn: Any = None
) -> Call[Execution]:
    """Ask an execution to stop (operators): its owner sees cancel_requested on the next
    heartbeat; an abandoned one fails for good at the next claim."""
    return Call(CANCEL_EXECUTION, {
        "execution_id": execution_id, "reason": reason, "channel_id": channel_id,
    }, _one_execution, conn)


def close_channel(channel_id: str, *, conn: Any = None) -> Call[Channel]:
    """Mark a run as over; purge deletes it once it has been quiet for its older_than."""
    return Call(CLOSE_CHANNEL, {"channel_id": channel_id}, _one(Channel), conn)


def set_key_ttl(
    channel_id: str, key_ttl: timedelta | str | None, *, conn: Any = None
) -> Call[Channel]:
    """How long the channel's finished keys keep replaying (None: as long as the channel)."""
    return Call(SET_KEY_TTL, {"channel_id": channel_id, "key_ttl": key_ttl}, _one(Channel), conn)


def purge(
    older_than: timedelta | str, batch_size: int = 1000, *, conn: Any = None
) -> Call[PurgeResult]:
    """Delete one bounded batch of what is past its lifetime (operators); repeat while
    ``more``."""
    return Call(PURGE, {"older_than": older_than, "batch_size": batch_size},
                _one(PurgeResult), conn)


def ledger_status(*, conn: Any = None) -> Call[LedgerStatus]:
    """Schema version, executions by status, expired leases, oldest in-flight claim."""
    return Call(LEDGER_STATUS, {}, _one(LedgerStatus), conn)


def tool_stats(*, conn: Any = None) -> Call[list[ToolStats]]:
    """Per-tool counts and durations."""
    return Call(TOOL_STATS, {}, _many(ToolStats), conn)


def channel_lineage(channel_id: str, *, conn: Any = None) -> Call[list[LineageEntry]]:
    """The ancestors of a channel, root first."""
    return Call(CHANNEL_LINEAGE, {"channel_id": channel_id}, _many(LineageEntry), conn)
