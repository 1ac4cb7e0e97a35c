"""Frozen pydantic models for the console reads (sql/60_console.sql)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict

TimelineKind = Literal[
    "event", "claimed", "reclaimed", "completed", "failed", "cancelled", "cancel_requested"
]



def micros(at: datetime) -> int:
    """A time in whole microseconds since 1970 (exact): what tells apart the channels one id
    had (an event's time in TimelineEntry.key, a channel's created_at in the live view)."""
    return (at - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)

class _Row(BaseModel):
    model_config = ConfigDict(frozen=True)


class ChannelSummary(_Row):
    """One row of list_channels: a channel, its run, ledger health and annotations."""

    channel_id: str
    created_at: datetime
    parent_channel_id: str | None
    fork_cursor: int | None
    head_cursor: int
    state_version: int
    metadata: dict[str, Any]
    closed_at: datetime | None
    last_event_at: datetime | None
    run_status: str | None
    run_agent: str | None
    executions: int
    in_flight: int
    failed: int
    ambiguous: int
    display_name: str | None
    tags: list[str]
    note: str | None
    annotation_revision: int


class TimelineEntry(_Row):
    """An event, or one point in a tool execution's life, at its place on the clock."""

    clock: int
    cursor: int
    kind: TimelineKind
    at: datetime
    source_channel_id: str
    event_type: str | None
    payload: Any = None
    execution_id: UUID | None
    key_name: str | None
    tool_name: str | None
    attempt: int | None
    status: str | None
    ambiguous: bool | None
    retryable: bool | None
    params: Any = None
    result: Any = None
    error: str | None

    @property
    def key(self) -> str:
        """A stable id for this row (the same row read twice has the same key; an event's
        holds its time too, so the channel created again under a purged one's id has
        other keys)."""
        if self.kind == "event":
            return f"ev-{self.cursor}-{micros(self.at)}"
        return f"x-{self.execution_id}-{self.kind}-{self.attempt}"


class ForkNode(_Row):
    """One channel of a fork tree."""

    channel_id: str
    parent_channel_id: str | None
    fork_cursor: int | None
    depth: int
    head_cursor: int
    state_version: int
    tool_policies: dict[str, str] | None
    metadata: dict[str, Any]
    created_at: datetime
    closed_at: datetime | None
    run_status: str | None
    in_flight: int
    failed: int
    ambiguous: int
    display_name: str | None
    tags: list[str]
    note: str | None


class StateChange(_Row):
    """One differing leaf of two states: its path, added / removed / changed, both values."""

    path: list[str]
    op: Literal["added", "removed", "changed"]
    a: Any = None
    b: Any = None


class StateDiff(_Row):
    """Where two channels part and how their latest states differ."""

    channel_a: str
    channel_b: str
    common_ancestor: str | None
    cursor_a: int | None
    cursor_b: int | None
    shared_cursor: int | None
    version_a: int
    version_b: int
    changes: list[StateChange]
    truncated: bool


class DecisionTrail(_Row):
    """What a channel knew at a cursor: lineage, event, state and known tool results."""

    channel_id: str
    cursor: int
    lineage: list[dict[str, Any]]
    event: dict[str, Any] | None
    state_version: int
    state_cursor: int
    state: Any = None
    tool_results: list[dict[str, Any]]


class Annotation(_Row):
    """A channel's annotations after annotate_channel (outcome updated or replayed)."""

    channel_id: str
    display_name: str | None
    tags: list[str]
    note: str | None
    revision: int
    updated_at: datetime
    outcome: Literal["updated", "replayed"]
