"""Every SQL statement the driver sends, one builder per Actae function.

A builder validates nothing and decides nothing: it names the function's arguments, adapts
JSON, and says how to turn the result rows into models. The async and the sync client both
execute these same builders (see client.py), so the two can never drift apart.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Generic, LiteralString, TypeVar, cast
from uuid import UUID

from psycopg.types.json import Jsonb

from actae._json import jsonb
from actae.admin_models import LedgerStatus, LineageEntry, PurgeResult, ToolStats
from actae.console.models import (
    Annotation,
    ChannelSummary,
    DecisionTrail,
    ForkNode,
    StateDiff,
    TimelineEntry,
)
from actae.errors import InvalidInput
from actae.models import (
    Channel,
    Claim,
    Event,
    EventRecorded,
    Execution,
    ExecutionTrace,
    ForkResult,
    StateSnapshot,
    Transition,
)
from actae.runs import ClaimedRun, RunRecord, SleepResult, WaitResult

T = TypeVar("T")
Row = dict[str, Any]


@dataclass(frozen=True)
class Call(Generic[T]):
    """One round trip: a statement, its parameters, and how to read its rows."""

    sql: LiteralString
    params: Mapping[str, Any]
    read: Callable[[list[Row]], T]
    conn: Any = None
    #: fetch results in binary format (large bytea columns travel as bytes, not hex)
    binary: bool = False
    #: the most seconds to wait for a connection from the client's pool (None: the pool's
    #: timeout); an outcome's record sent again after a dropped connection sets it
    wait: float | None = None
    #: psycopg's prepare argument: None (prepared after the connection's prepare_threshold
    #: uses), False for a call sent again after a stale plan (actae.client.stale_plan)
    prepare: bool | None = None


def _json(value: Any) -> Jsonb | None:
    return None if value is None else jsonb(value)


def _sql(function: LiteralString, *arguments: LiteralString) -> LiteralString:
    """``select * from actae.f(p_a => %(a)s::type, ...)`` for arguments given as 'a::type'.

    An array argument (a type ending in ``[]``) is sent in binary, ``%(a)b``: the text form
    quotes and escapes every element in Python (a regular expression per element, most of
    what a batch of 8 JSON values cost to send), the binary form copies each as it is (and
    bytes travel as bytes, not hex)."""
    named = ", ".join(
        f"p_{name} => %({name}){'b' if cast.endswith('[]') else 's'}::{cast}"
        for name, cast in (a.split("::") for a in arguments)
    )
    return f"select * from actae.{function}({named})"


# The models' own validators, called directly (model_validate's checks of its keyword
# arguments cost as much as validating a small model); a Claim validates its row in one call.
_validate_execution = Execution.__pydantic_validator__.validate_python
_validate_claim = Claim.__pydantic_validator__.validate_python


def _execution(row: Row) -> Execution:
    execution: Execution = _validate_execution(row)
    return execution


def _one_execution(rows: list[Row]) -> Execution:
    return _execution(rows[0])


def _claim_of(row: Row) -> Claim:
    claim: Claim = _validate_claim({"status": row["outcome"], "execution": row})
    return claim


def _claim(rows: list[Row]) -> Claim:
    return _claim_of(rows[0])


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
        "dedup_fields": field_names(dedup_fields),
        "lease_seconds": lease_seconds,
    }, _claim, conn)


# A claim_token is typed UUID | None, as the claim (Claim.claim_token, RunRecord.claim_token)
# holds it: None unless the claim is owned, and the server refuses it (AC400 "claim_token is
# required"), so code that checked claim.owned passes the token without narrowing it.

# heartbeat, complete, fail and cancel take the execution's channel_id when the caller has
# it (Execution.channel_id): every statement then reads that one channel, a single-shard
# call on Citus. Without it the channel is looked up by execution_id.

def heartbeat_execution(
    execution_id: UUID, claim_token: UUID | None, lease_seconds: int | None = None, *,
    channel_id: str | None = None, conn: Any = None
) -> Call[Execution]:
    """Extend the caller's lease (fenced by claim_token)."""
    return Call(HEARTBEAT, {
        "execution_id": execution_id, "claim_token": claim_token, "lease_seconds": lease_seconds,
        "channel_id": channel_id,
    }, _one_execution, conn)


def complete_execution(
    execution_id: UUID, claim_token: UUID | None, result: Any = None, *,
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
    claim_token: UUID | None,
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


def with_topic(page: LiteralString) -> LiteralString:
    """A page statement (its channel in %(channel_id)s) with the channel's topic on every
    row: one statement, so one snapshot, and one row with the page's columns null when the
    page is empty. A channel purged and created again under its id is known as such
    (another topic) before any of its rows is used, also when it has none after the cursor.
    "offset 0" keeps the topic's subquery from being flattened into the join, which would
    call channel_topic once per row."""
    return ("select t.topic, p.* from (select actae.channel_topic(%(channel_id)s::text)"
            " as topic offset 0) as t left join lateral (" + page + ") as p on true")


WATCH_PAGE = with_topic(LIST_EVENTS)


def watch_page(
    channel_id: str, after_cursor: int, max_events: int, *, conn: Any = None
) -> Call[tuple[str, list[Event]]]:
    """list_events with the channel's topic as of the page: what ActaeClient.watch reads."""
    return Call(WATCH_PAGE, {
        "channel_id": channel_id, "after_cursor": after_cursor, "max_events": max_events,
    }, lambda rows: (rows[0]["topic"], [Event.model_validate(r) for r in rows
                                        if r["cursor"] is not None]), conn)


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


# Operator functions and audit views (migration 0002, sql/30_admin.sql).

CANCEL_EXECUTION = _sql("cancel_execution", "execution_id::uuid", "reason::text",
                        "channel_id::text")
CLOSE_CHANNEL = _sql("close_channel", "channel_id::text")
SET_KEY_TTL = _sql("set_key_ttl", "channel_id::text", "key_ttl::interval")
PURGE = _sql("purge", "older_than::interval", "batch_size::integer")
LEDGER_STATUS = "select * from actae.ledger_status"
TOOL_STATS = "select * from actae.tool_stats order by tool_name"
CHANNEL_LINEAGE = _sql("channel_lineage", "channel_id::text")


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
    """The ancestors of a channel, root first (actae.channel_lineage: on Citus too)."""
    return Call(CHANNEL_LINEAGE, {"channel_id": channel_id}, _many(LineageEntry), conn)


# Runs (migration 0007, sql/40_runs.sql, SPEC section 7).

START_RUN = _sql("start_run", "channel_id::text", "agent::text", "input::jsonb", "queue::text",
                 "run_at::timestamptz", "max_attempts::integer")
CLAIM_RUN = _sql("claim_run", "queue::text", "worker::text", "agents::text[]",
                 "lease_seconds::integer")
CLAIM_RUNS = _sql("claim_runs", "queue::text", "worker::text", "max_runs::integer",
                  "agents::text[]", "lease_seconds::integer")


# claim_runs (up to max_runs claim_run calls in one transaction) and with each claimed run
# its channel's first page of list_completed as a JSON array of its rows: the worker's
# claim and prefetch, one round trip and one commit.
CLAIM_RUNS_WITH_COMPLETED: LiteralString = (
    "select r.*, p.completed from actae.claim_runs(p_queue => %(queue)s::text,"
    " p_worker => %(worker)s::text, p_max_runs => %(max_runs)s::integer,"
    " p_agents => %(agents)b::text[], p_lease_seconds => %(lease_seconds)s::integer) as r"
    " cross join lateral ("
    "select coalesce(jsonb_agg(to_jsonb(e) order by e.key_name), '[]'::jsonb) as completed"
    " from actae.list_completed(p_channel_id => r.channel_id,"
    " p_max_rows => %(max_rows)s::integer) as e) as p")
# complete_run, then (in the same transaction: one round trip, one commit) the claims of
# CLAIM_RUNS_WITH_COMPLETED: a worker's slot passes straight to the next due run. The
# claims run only after a completion: the left join reads complete_run's row first (with
# no join condition it can only be a nested loop with that side outer), and complete_run
# returns a completed run or raises, which undoes the whole statement. One row per run
# claimed, or one with null run columns when none was; "done" is the completed run.
COMPLETE_RUN_AND_CLAIM: LiteralString = (
    "select to_jsonb(d) as done, c.* from actae.complete_run(p_channel_id =>"
    " %(channel_id)s::text, p_claim_token => %(claim_token)s::uuid,"
    " p_result => %(result)s::jsonb) as d left join lateral ("
    + CLAIM_RUNS_WITH_COMPLETED + ") as c on true")
HEARTBEAT_RUN = _sql("heartbeat_run", "channel_id::text", "claim_token::uuid",
                     "lease_seconds::integer")
COMPLETE_RUN = _sql("complete_run", "channel_id::text", "claim_token::uuid", "result::jsonb")
FAIL_RUN = _sql("fail_run", "channel_id::text", "claim_token::uuid", "error::text",
                "retryable::boolean")
SLEEP_RUN = _sql("sleep_run", "channel_id::text", "claim_token::uuid", "sleep_key::text",
                 "seconds::integer")
WAIT_FOR_EVENT = _sql("wait_for_event", "channel_id::text", "claim_token::uuid",
                      "wait_key::text", "event_type::text", "timeout_seconds::integer")
CANCEL_RUN = _sql("cancel_run", "channel_id::text", "reason::text")
GET_RUN = _sql("get_run", "channel_id::text")
LIST_RUNS = _sql("list_runs", "queue::text", "status::text", "agent::text", "max_rows::integer")
QUEUE_TOPIC = "select actae.queue_topic(%(queue)s::text) as topic"


def field_names(value: Sequence[str] | None) -> list[str] | None:
    """dedup_fields as a list; a string is refused (InvalidInput), not split into letters
    (the integrations check theirs with it too)."""
    if isinstance(value, str | bytes):
        raise InvalidInput(f"dedup_fields must be a list of field names, not the string "
                           f"{value!r}", {"argument": "dedup_fields"})
    return None if value is None else list(value)


def tools_field_names(
    value: Mapping[str, Sequence[str] | None] | None,
) -> dict[str, list[str] | None]:
    """An integration's dedup_fields: tool name -> field names (field_names for each);
    anything but a mapping is InvalidInput."""
    if value is None:
        return {}
    given = cast("object", value)  # checked at run time: an untyped caller may pass anything
    if not isinstance(given, Mapping):
        raise InvalidInput("dedup_fields must map tool names to lists of field names, got "
                           f"{type(given).__name__}", {"argument": "dedup_fields"})
    return {name: field_names(fields) for name, fields in value.items()}


def check_lease_seconds(value: object, argument: str = "lease_seconds") -> int:
    """An integration's lease: a whole number of seconds from 1 to 86400 (SPEC's limit),
    as an int (60.0, from a JSON or YAML setting, is 60), checked when the integration is
    made (or a tool's own setting read), not first at a claim after a model turn was paid
    for; a bool or a fraction is refused, not rounded. InvalidInput naming argument
    otherwise."""
    whole = (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, float) and value.is_integer())
    if not whole or not 1 <= cast(float, value) <= 86400:
        raise InvalidInput(f"{argument} must be a whole number from 1 to 86400, got {value!r}",
                           {"argument": argument})
    return int(cast(float, value))


def _aware(value: datetime | None) -> datetime | None:
    """A naive datetime as the local time Python means by it (``datetime.astimezone()``,
    as ``actae runs start --at`` reads one): sent as it is, PostgreSQL would read it in the
    session's time zone, the server's, hours off from what the caller meant. Near year 1 or
    9999, which Python cannot convert (ValueError), with today's local offset: the database
    still decides (a run_at in the past is now, 9999 and later is refused)."""
    if value is None or value.utcoffset() is not None:
        return value
    try:
        return value.astimezone()
    except (OverflowError, ValueError):
        return value.replace(tzinfo=datetime.now().astimezone().tzinfo)


def _seconds(value: timedelta | float | None, argument: str) -> int | None:
    """Whole seconds, rounded up (a sleep never ends early); None stays None (AC400). A
    negative value is rounded away from zero, so -0.5 is refused by the database as -1 is
    (not taken as 0); one that is not a finite number is InvalidInput naming argument."""
    if value is None:
        return None
    seconds = value.total_seconds() if isinstance(value, timedelta) else float(value)
    if not math.isfinite(seconds):
        raise InvalidInput(f"{argument} must be a finite number of seconds, got {value!r}",
                           {"argument": argument})
    return math.ceil(seconds) if seconds >= 0 else math.floor(seconds)


def _first_run(rows: list[Row]) -> RunRecord | None:
    return RunRecord.model_validate(rows[0]) if rows else None


def start_run(
    channel_id: str,
    agent: str,
    input: Any = None,  # noqa: A002 - the contract's name
    queue: str = "default",
    run_at: datetime | None = None,
    max_attempts: int = 5,
    *,
    conn: Any = None,
) -> Call[RunRecord]:
    """Create the run of ``agent`` on ``channel_id`` (outcome started), or replay it when the
    channel already has this agent and input (outcome replayed)."""
    return Call(START_RUN, {
        "channel_id": channel_id, "agent": agent, "input": _json(input), "queue": queue,
        "run_at": _aware(run_at), "max_attempts": max_attempts,
    }, _one(RunRecord), conn)


def claim_run(
    queue: str,
    worker: str,
    agents: Sequence[str] | None = None,
    lease_seconds: int = 60,
    *,
    conn: Any = None,
) -> Call[RunRecord | None]:
    """Lease the oldest due run of ``queue`` (claimed / reclaimed), or None."""
    return Call(CLAIM_RUN, {
        "queue": queue, "worker": worker,
        "agents": None if agents is None else list(agents), "lease_seconds": lease_seconds,
    }, _first_run, conn)


def claim_runs(
    queue: str,
    worker: str,
    max_runs: int,
    agents: Sequence[str] | None = None,
    lease_seconds: int = 60,
    *,
    conn: Any = None,
) -> Call[list[RunRecord]]:
    """claim_run up to ``max_runs`` times in one transaction: a different run per element,
    oldest due first; fewer when fewer are due (an empty list when none is)."""
    return Call(CLAIM_RUNS, {
        "queue": queue, "worker": worker, "max_runs": max_runs,
        "agents": None if agents is None else list(agents), "lease_seconds": lease_seconds,
    }, _many(RunRecord), conn)


def _claimed_runs(rows: list[Row]) -> list[ClaimedRun]:
    return [ClaimedRun(run=RunRecord.model_validate(row),
                       completed=[_execution(e) for e in row["completed"]]) for row in rows]


def _first_claimed_run(rows: list[Row]) -> ClaimedRun | None:
    claimed = _claimed_runs(rows)
    return claimed[0] if claimed else None


def _claim_runs_params(
    queue: str, worker: str, max_runs: int, agents: Sequence[str] | None, lease_seconds: int,
    max_rows: int,
) -> dict[str, Any]:
    """The parameters of CLAIM_RUNS_WITH_COMPLETED (and COMPLETE_RUN_AND_CLAIM)."""
    return {
        "queue": queue, "worker": worker, "max_runs": max_runs,
        "agents": None if agents is None else list(agents), "lease_seconds": lease_seconds,
        "max_rows": max_rows,
    }


def claim_run_with_completed(
    queue: str,
    worker: str,
    agents: Sequence[str] | None = None,
    lease_seconds: int = 60,
    max_rows: int = 1000,
    *,
    conn: Any = None,
) -> Call[ClaimedRun | None]:
    """claim_run, plus the claimed channel's completed executions (list_completed's first
    page of ``max_rows``) in the same round trip; None when no run is due."""
    return Call(CLAIM_RUNS_WITH_COMPLETED, _claim_runs_params(
        queue, worker, 1, agents, lease_seconds, max_rows), _first_claimed_run, conn)


def claim_runs_with_completed(
    queue: str,
    worker: str,
    max_runs: int,
    agents: Sequence[str] | None = None,
    lease_seconds: int = 60,
    max_rows: int = 1000,
    *,
    conn: Any = None,
) -> Call[list[ClaimedRun]]:
    """claim_run_with_completed up to ``max_runs`` times in one round trip and one
    transaction: a different run per element, oldest due first; fewer than ``max_runs``
    when fewer are due (an empty list when none is)."""
    return Call(CLAIM_RUNS_WITH_COMPLETED, _claim_runs_params(
        queue, worker, max_runs, agents, lease_seconds, max_rows), _claimed_runs, conn)


def heartbeat_run(
    channel_id: str, claim_token: UUID | None, lease_seconds: int | None = None, *,
    conn: Any = None
) -> Call[RunRecord]:
    """Extend the owner's lease; the row says whether cancellation was requested."""
    return Call(HEARTBEAT_RUN, {
        "channel_id": channel_id, "claim_token": claim_token, "lease_seconds": lease_seconds,
    }, _one(RunRecord), conn)


def complete_run(
    channel_id: str, claim_token: UUID | None, result: Any = None, *, conn: Any = None
) -> Call[RunRecord]:
    """Finish the owner's run (repeating with the same result is a no-op)."""
    return Call(COMPLETE_RUN, {
        "channel_id": channel_id, "claim_token": claim_token, "result": _json(result),
    }, _one(RunRecord), conn)


def _completed_and_claimed(rows: list[Row]) -> tuple[RunRecord, list[ClaimedRun]]:
    done = RunRecord.model_validate(rows[0]["done"])
    return done, _claimed_runs([r for r in rows if r["channel_id"] is not None])


def complete_run_and_claim(
    channel_id: str, claim_token: UUID | None, result: Any, queue: str, worker: str,
    max_runs: int = 1, agents: Sequence[str] | None = None, lease_seconds: int = 60,
    max_rows: int = 1000, *, conn: Any = None,
) -> Call[tuple[RunRecord, list[ClaimedRun]]]:
    """complete_run, then in the same transaction (one round trip, one commit)
    claim_runs_with_completed(queue, worker, max_runs, ...): the completed run, and the runs
    claimed (none when none is due). complete_run returns a completed run or raises; any
    error (LeaseLost, or one of the claims) undoes the whole statement: nothing is
    completed or claimed."""
    return Call(COMPLETE_RUN_AND_CLAIM, {
        "channel_id": channel_id, "claim_token": claim_token, "result": _json(result),
        **_claim_runs_params(queue, worker, max_runs, agents, lease_seconds, max_rows),
    }, _completed_and_claimed, conn)


def fail_run(
    channel_id: str, claim_token: UUID | None, error: str, retryable: bool = True, *,
    conn: Any = None
) -> Call[RunRecord]:
    """Record a failed attempt: queued again after backoff, or failed / cancelled for good."""
    return Call(FAIL_RUN, {
        "channel_id": channel_id, "claim_token": claim_token, "error": error,
        "retryable": retryable,
    }, _one(RunRecord), conn)


def sleep_run(
    channel_id: str, claim_token: UUID | None, sleep_key: str, seconds: timedelta | float | None,
    *, conn: Any = None,
) -> Call[SleepResult]:
    """Durable sleep: elapsed (go on), sleeping (parked) or cancelled."""
    return Call(SLEEP_RUN, {
        "channel_id": channel_id, "claim_token": claim_token, "sleep_key": sleep_key,
        "seconds": _seconds(seconds, "seconds"),
    }, _one(SleepResult), conn)


def wait_for_event(
    channel_id: str, claim_token: UUID | None, wait_key: str, event_type: str,
    timeout: timedelta | float | None, *, conn: Any = None,
) -> Call[WaitResult]:
    """Durable wait for an event of ``event_type``: received, timed_out, waiting (parked)
    or cancelled."""
    return Call(WAIT_FOR_EVENT, {
        "channel_id": channel_id, "claim_token": claim_token, "wait_key": wait_key,
        "event_type": event_type, "timeout_seconds": _seconds(timeout, "timeout_seconds"),
    }, _one(WaitResult), conn)


def cancel_run(channel_id: str, reason: str, *, conn: Any = None) -> Call[RunRecord]:
    """Stop a run (operators): parked or queued ones at once, a running one at its owner's
    next heartbeat, sleep or wait."""
    return Call(CANCEL_RUN, {"channel_id": channel_id, "reason": reason}, _one(RunRecord), conn)


def get_run(channel_id: str, *, conn: Any = None) -> Call[RunRecord]:
    """One run (never its claim token)."""
    return Call(GET_RUN, {"channel_id": channel_id}, _one(RunRecord), conn)


def list_runs(
    queue: str | None = None,
    status: str | None = None,
    agent: str | None = None,
    max_rows: int = 100,
    *,
    conn: Any = None,
) -> Call[list[RunRecord]]:
    """Runs filtered by queue, status and agent, oldest first."""
    return Call(LIST_RUNS, {
        "queue": queue, "status": status, "agent": agent, "max_rows": max_rows,
    }, _many(RunRecord), conn)


def queue_topic(queue: str, *, conn: Any = None) -> Call[str]:
    """The LISTEN topic on which a queue announces runs that became due now."""
    return Call(QUEUE_TOPIC, {"queue": queue}, lambda rows: rows[0]["topic"], conn)
SET_EXECUTION_TRACE = _sql("set_execution_trace", "execution_id::uuid", "claim_token::uuid",
                           "traceparent::text")
GET_EXECUTION_TRACE = _sql("get_execution_trace", "execution_id::uuid")


def set_execution_trace(
    execution_id: UUID, claim_token: UUID | None, traceparent: str, *, conn: Any = None
) -> Call[ExecutionTrace]:
    """Record the traceparent of the span running the caller's attempt (see actae.otel)."""
    return Call(SET_EXECUTION_TRACE, {"execution_id": execution_id, "claim_token": claim_token,
                                      "traceparent": traceparent}, _one(ExecutionTrace), conn)


def get_execution_trace(execution_id: UUID, *, conn: Any = None) -> Call[list[ExecutionTrace]]:
    """The traceparents recorded for an execution's attempts, in fence order."""
    return Call(GET_EXECUTION_TRACE, {"execution_id": execution_id}, _many(ExecutionTrace), conn)


# Console reads and annotations (migration 0010, sql/60_console.sql).

LIST_CHANNELS = _sql("list_channels", "metadata::jsonb", "parent_channel_id::text",
                     "created_after::timestamptz", "created_before::timestamptz",
                     "status::text", "agent::text", "tag::text",
                     "before_created_at::timestamptz", "before_channel_id::text",
                     "max_rows::integer")
TIMELINE = _sql("timeline", "channel_id::text", "after_clock::bigint", "max_rows::integer")
FORK_TREE = _sql("fork_tree", "channel_id::text", "max_rows::integer")
DIFF_STATES = _sql("diff_states", "channel_a::text", "channel_b::text", "max_changes::integer")
DECISION_TRAIL = _sql("decision_trail", "channel_id::text", "cursor::bigint",
                      "max_results::integer")
ANNOTATE_CHANNEL = _sql("annotate_channel", "channel_id::text", "display_name::text",
                        "tags::text[]", "note::text", "expected_revision::bigint")
FOLLOW_CHANNEL = ("select actae.follow_channel(p_channel_id => %(channel_id)s::text,"
                  " p_seconds => %(seconds)s::integer) as topic")


def list_channels(
    metadata: Mapping[str, Any] | None = None,
    parent_channel_id: str | None = None,
    created_after: datetime | None = None,
    created_before: datetime | None = None,
    status: str | None = None,
    agent: str | None = None,
    tag: str | None = None,
    before_created_at: datetime | None = None,
    before_channel_id: str | None = None,
    max_rows: int = 50,
    *,
    conn: Any = None,
) -> Call[list[ChannelSummary]]:
    """Channels newest first, filtered; pass the last row's created_at and channel_id as
    before_* for the next page."""
    return Call(LIST_CHANNELS, {
        "metadata": _json(metadata), "parent_channel_id": parent_channel_id,
        "created_after": _aware(created_after), "created_before": _aware(created_before),
        "status": status, "agent": agent, "tag": tag,
        "before_created_at": _aware(before_created_at),
        "before_channel_id": before_channel_id, "max_rows": max_rows,
    }, _many(ChannelSummary), conn)


def timeline(
    channel_id: str, after_clock: int | None = None, max_rows: int = 100, *, conn: Any = None
) -> Call[list[TimelineEntry]]:
    """Events and tool-execution points in clock order after after_clock (None: from the
    start); a page ends at a whole clock, so the next one is after the last row's clock."""
    return Call(TIMELINE, {
        "channel_id": channel_id, "after_clock": after_clock, "max_rows": max_rows,
    }, _many(TimelineEntry), conn)


def fork_tree(channel_id: str, max_rows: int = 1000, *, conn: Any = None) -> Call[list[ForkNode]]:
    """The root of the channel's fork tree and every descendant, depth first."""
    return Call(FORK_TREE, {"channel_id": channel_id, "max_rows": max_rows},
                _many(ForkNode), conn)


def diff_states(
    channel_a: str, channel_b: str, max_changes: int = 1000, *, conn: Any = None
) -> Call[StateDiff]:
    """Common ancestor, fork cursors and the leaf-by-leaf diff of the two latest states."""
    return Call(DIFF_STATES, {
        "channel_a": channel_a, "channel_b": channel_b, "max_changes": max_changes,
    }, _one(StateDiff), conn)


def decision_trail(
    channel_id: str, cursor: int, max_results: int = 1000, *, conn: Any = None
) -> Call[DecisionTrail]:
    """Lineage, the event, the state and the tool results known at a cursor."""
    return Call(DECISION_TRAIL, {
        "channel_id": channel_id, "cursor": cursor, "max_results": max_results,
    }, _one(DecisionTrail), conn)


def annotate_channel(
    channel_id: str,
    display_name: str | None,
    tags: Sequence[str] | None,
    note: str | None,
    expected_revision: int,
    *,
    conn: Any = None,
) -> Call[Annotation]:
    """Set a channel's display name, tags and note, fenced by expected_revision."""
    return Call(ANNOTATE_CHANNEL, {
        "channel_id": channel_id, "display_name": display_name,
        "tags": None if tags is None else list(tags), "note": note,
        "expected_revision": expected_revision,
    }, _one(Annotation), conn)


def follow_channel(channel_id: str, seconds: int = 60, *, conn: Any = None) -> Call[str]:
    """watch_channel for readers: have an existing channel's appends NOTIFY its topic for the
    next `seconds` (never creates a channel); returns the topic."""
    return Call(FOLLOW_CHANNEL, {"channel_id": channel_id, "seconds": seconds},
                lambda rows: rows[0]["topic"], conn)


# Whether the connected role can change the ledger: a superuser, a write privilege on a
# table of schema actae, or EXECUTE on a function of schema actae that may write: any
# VOLATILE one (a STABLE or IMMUTABLE function cannot write) except those known to write
# nothing of the ledger: follow_channel (the readers' watch: it only sets
# channels.watched_until), _now (reads the clock), _uuid7 (makes an id). A new writing
# function is counted without being listed here. The console refuses such a role (it must
# be read-only by construction).
ROLE_CAN_WRITE = """
select
    exists (
        select 1 from pg_catalog.pg_roles as r
        where r.rolname = current_user and r.rolsuper
    )
    or exists (
        select 1 from pg_catalog.pg_class as c
        where c.relnamespace = 'actae'::regnamespace and c.relkind in ('r', 'p')
            and has_table_privilege(c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE')
    )
    or exists (
        select 1 from pg_catalog.pg_proc as p
        where p.pronamespace = 'actae'::regnamespace
            and p.provolatile = 'v'
            and p.proname not in ('follow_channel', '_now', '_uuid7')
            and has_function_privilege(p.oid, 'EXECUTE')
    ) as can_write
"""


def role_can_write(*, conn: Any = None) -> Call[bool]:
    """True when the connected role can write to the ledger (tables or writing functions)."""
    return Call(ROLE_CAN_WRITE, {}, lambda rows: bool(rows[0]["can_write"]), conn)




# LangGraph checkpointer (migration 0008, sql/50_langgraph.sql; used by actae.langgraph).
# Rows are returned as dicts: the saver turns them into LangGraph's own types.

LANGGRAPH_PUT = _sql("langgraph_put", "thread_id::text", "checkpoint_ns::text",
                     "checkpoint_id::text", "parent_checkpoint_id::text", "checkpoint::jsonb",
                     "metadata::jsonb", "blobs::bytea[]")
LANGGRAPH_PUT_WRITES = _sql("langgraph_put_writes", "thread_id::text", "checkpoint_ns::text",
                            "checkpoint_id::text", "task_id::text", "task_path::text",
                            "writes::jsonb")
LANGGRAPH_GET_TUPLE = _sql("langgraph_get_tuple", "thread_id::text", "checkpoint_ns::text",
                           "checkpoint_id::text")
LANGGRAPH_LIST = _sql("langgraph_list", "thread_id::text", "checkpoint_ns::text",
                      "filter::jsonb", "before::text", "limit::integer",
                      "checkpoint_id::text")
LANGGRAPH_DELETE_THREAD = ("select actae.langgraph_delete_thread("
                           "p_thread_id => %(thread_id)s::text) as count")
LANGGRAPH_COPY_THREAD = ("select actae.langgraph_copy_thread(p_source_thread_id =>"
                         " %(source_thread_id)s::text, p_target_thread_id =>"
                         " %(target_thread_id)s::text) as count")
LANGGRAPH_FORK_THREAD = _sql("langgraph_fork_thread", "thread_id::text", "checkpoint_ns::text",
                             "checkpoint_id::text", "new_thread_id::text",
                             "tool_policies::jsonb")
LANGGRAPH_PRUNE = ("select actae.langgraph_prune(p_thread_ids => %(thread_ids)s::text[],"
                   " p_strategy => %(strategy)s::text) as count")
LANGGRAPH_DELETE_FOR_RUNS = ("select actae.langgraph_delete_for_runs("
                             "p_run_ids => %(run_ids)s::text[]) as count")
LANGGRAPH_CHANNEL = ("select actae.langgraph_channel(p_thread_id => %(thread_id)s::text,"
                     " p_checkpoint_ns => %(checkpoint_ns)s::text) as channel_id")


def _rows(rows: list[Row]) -> list[Row]:
    return rows


def _count(rows: list[Row]) -> int:
    return int(rows[0]["count"])


def langgraph_put(
    thread_id: str, checkpoint_ns: str, checkpoint_id: str, parent_checkpoint_id: str | None,
    checkpoint: Mapping[str, Any], metadata: Mapping[str, Any],
    blobs: Sequence[bytes] | None = None, *, conn: Any = None,
) -> Call[Row]:
    """Store a LangGraph checkpoint as a state transition of the thread's channel; a channel
    value {"type": t, "blob": i} is stored as {"type": t, "data": base64 of blobs[i - 1]}."""
    return Call(LANGGRAPH_PUT, {
        "thread_id": thread_id, "checkpoint_ns": checkpoint_ns, "checkpoint_id": checkpoint_id,
        "parent_checkpoint_id": parent_checkpoint_id, "checkpoint": _json(checkpoint),
        "metadata": _json(metadata), "blobs": None if not blobs else list(blobs),
    }, lambda rows: rows[0], conn)


def langgraph_put_writes(
    thread_id: str, checkpoint_ns: str, checkpoint_id: str, task_id: str, task_path: str,
    writes: Sequence[Mapping[str, Any]], *, conn: Any = None,
) -> Call[int]:
    """Store a task's pending writes as idempotent events; returns how many were recorded."""
    return Call(LANGGRAPH_PUT_WRITES, {
        "thread_id": thread_id, "checkpoint_ns": checkpoint_ns, "checkpoint_id": checkpoint_id,
        "task_id": task_id, "task_path": task_path,
        "writes": _json(writes),
    }, lambda rows: int(rows[0]["langgraph_put_writes"]), conn)


def langgraph_get_tuple(
    thread_id: str, checkpoint_ns: str, checkpoint_id: str | None = None, *, conn: Any = None,
) -> Call[list[Row]]:
    """One checkpoint (latest when checkpoint_id is None) with its pending writes, or none."""
    return Call(LANGGRAPH_GET_TUPLE, {
        "thread_id": thread_id, "checkpoint_ns": checkpoint_ns, "checkpoint_id": checkpoint_id,
    }, _rows, conn, binary=True)


def langgraph_list(
    thread_id: str | None, checkpoint_ns: str | None = None,
    filter: Mapping[str, Any] | None = None, before: str | None = None,
    limit: int | None = None, checkpoint_id: str | None = None, *, conn: Any = None,
) -> Call[list[Row]]:
    """Checkpoints newest first, filtered by thread, namespace, metadata, before and (when
    given) one checkpoint id."""
    return Call(LANGGRAPH_LIST, {
        "thread_id": thread_id, "checkpoint_ns": checkpoint_ns, "filter": _json(filter),
        "before": before, "limit": limit, "checkpoint_id": checkpoint_id,
    }, _rows, conn, binary=True)


def langgraph_delete_thread(thread_id: str, *, conn: Any = None) -> Call[int]:
    """Forget every namespace of a thread; returns how many."""
    return Call(LANGGRAPH_DELETE_THREAD, {"thread_id": thread_id}, _count, conn)


def langgraph_copy_thread(
    source_thread_id: str, target_thread_id: str, *, conn: Any = None
) -> Call[int]:
    """Copy a thread (a fork_channel per namespace); returns how many namespaces."""
    return Call(LANGGRAPH_COPY_THREAD, {
        "source_thread_id": source_thread_id, "target_thread_id": target_thread_id,
    }, _count, conn)


def langgraph_fork_thread(
    thread_id: str, checkpoint_ns: str, checkpoint_id: str, new_thread_id: str,
    tool_policies: Mapping[str, str] | None = None, *, conn: Any = None,
) -> Call[ForkResult]:
    """A new thread starting at a past checkpoint (fork_channel at its cursor)."""
    return Call(LANGGRAPH_FORK_THREAD, {
        "thread_id": thread_id, "checkpoint_ns": checkpoint_ns, "checkpoint_id": checkpoint_id,
        "new_thread_id": new_thread_id, "tool_policies": _json(tool_policies),
    }, _one(ForkResult), conn)


def langgraph_prune(
    thread_ids: Sequence[str] | None, strategy: str = "keep_latest", *, conn: Any = None
) -> Call[int]:
    """keep_latest: forget all but the latest checkpoint per namespace; delete: the threads."""
    return Call(LANGGRAPH_PRUNE, {
        "thread_ids": None if thread_ids is None else list(thread_ids), "strategy": strategy,
    }, _count, conn)


def langgraph_delete_for_runs(
    run_ids: Sequence[str] | None, *, conn: Any = None
) -> Call[int]:
    """Forget the checkpoints whose metadata run_id is one of run_ids."""
    return Call(LANGGRAPH_DELETE_FOR_RUNS, {
        "run_ids": None if run_ids is None else list(run_ids)}, _count, conn)


def langgraph_channel(thread_id: str, checkpoint_ns: str = "", *, conn: Any = None) -> Call[str]:
    """The channel of a thread namespace (created empty if needed)."""
    return Call(LANGGRAPH_CHANNEL, {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns},
                lambda rows: rows[0]["channel_id"], conn)




CLAIM_EXECUTIONS = _sql("claim_executions", "channel_id::text", "key_names::text[]",
                        "tool_names::text[]", "params::jsonb[]", "dedup_fields::jsonb[]",
                        "lease_seconds::integer")
COMPLETE_EXECUTIONS = _sql("complete_executions", "execution_ids::uuid[]",
                           "claim_tokens::uuid[]", "results::jsonb[]", "channel_id::text")


def _list(values: Sequence[Any] | None) -> list[Any] | None:
    """A sequence as a list (a SQL array); None passes through, for the database to refuse."""
    return None if values is None else list(values)


def _jsons(values: Sequence[Any] | None) -> list[Jsonb | None] | None:
    """Each value as JSON (a jsonb[] array); None passes through, for the database to refuse.
    A value already adapted as jsonb (a single call's argument) is sent as it is."""
    return None if values is None else [
        v if isinstance(v, Jsonb) else _json(v) for v in values]


def _claims(rows: list[Row]) -> list[Claim]:
    return [_claim_of(r) for r in rows]


def claim_executions(
    channel_id: str,
    key_names: Sequence[str],
    tool_names: Sequence[str],
    params: Sequence[Mapping[str, Any]],
    dedup_fields: Sequence[Sequence[str] | None] | None = None,
    lease_seconds: int = 60,
    *,
    conn: Any = None,
) -> Call[list[Claim]]:
    """claim_execution for each element (key_names[i], tool_names[i], params[i],
    dedup_fields[i]) in one round trip and one transaction: one Claim per element, in order.
    An element's error raises for the whole batch and nothing is written."""
    return Call(CLAIM_EXECUTIONS, {
        "channel_id": channel_id, "key_names": _list(key_names), "tool_names": _list(tool_names),
        "params": _jsons(params),
        "dedup_fields": None if dedup_fields is None else [
            None if f is None else jsonb(field_names(f)) for f in dedup_fields],
        "lease_seconds": lease_seconds,
    }, _claims, conn)


def complete_executions(
    execution_ids: Sequence[UUID],
    claim_tokens: Sequence[UUID | None],
    results: Sequence[Any] | None = None,
    *,
    channel_id: str | None = None,
    conn: Any = None,
) -> Call[list[Execution]]:
    """complete_execution for each element in one round trip and one transaction. An
    element's error raises for the whole batch and records no result (complete the others
    again: their tokens are still current). With channel_id (every element's channel, as
    claim_executions returns them) the batch is one UPDATE on that channel."""
    return Call(COMPLETE_EXECUTIONS, {
        "execution_ids": _list(execution_ids), "claim_tokens": _list(claim_tokens),
        "results": _jsons(results), "channel_id": channel_id,
    }, _many(Execution), conn)


LIST_COMPLETED = _sql("list_completed", "channel_id::text", "after_key_name::text",
                      "max_rows::integer")


def list_completed(
    channel_id: str,
    after_key_name: str | None = None,
    max_rows: int = 1000,
    *,
    conn: Any = None,
) -> Call[list[Execution]]:
    """Every completed execution the channel sees (a fork's inherited ones included, its tool
    policies applied), by key_name; page by passing the last key_name back."""
    return Call(LIST_COMPLETED, {
        "channel_id": channel_id, "after_key_name": after_key_name, "max_rows": max_rows,
    }, _many(Execution), conn)
