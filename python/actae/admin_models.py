"""Frozen models for the admin functions and audit views (migration 0002, sql/30_admin.sql)."""

from __future__ import annotations

from datetime import datetime, timedelta
from uuid import UUID

from pydantic import BaseModel, ConfigDict


class _Row(BaseModel):
    model_config = ConfigDict(frozen=True, populate_by_name=True)


class PurgeResult(_Row):
    """What one ``actae.purge`` call deleted; ``more`` is true when it hit its batch size,
    or deleted a fork whose parent may be purgeable now: call again."""

    executions: int
    events: int
    snapshots: int
    operations: int
    channels: int
    more: bool


class LedgerStatus(_Row):
    """The single row of the ``actae.ledger_status`` view."""

    schema_version: int | None
    channels: int
    closed_channels: int
    forks: int
    executions: int
    claimed: int
    in_progress: int
    completed: int
    failed: int
    expired_leases: int
    cancelled: int = 0
    oldest_in_flight_claimed_at: datetime | None = None
    oldest_expired_lease_at: datetime | None = None


class ToolStats(_Row):
    """One row of the ``actae.tool_stats`` view."""

    tool_name: str
    executions: int
    claimed: int
    in_progress: int
    completed: int
    failed: int
    cancel_requested: int
    ambiguous: int
    attempts: int
    cancelled: int = 0
    avg_duration: timedelta | None = None
    p50_seconds: float | None = None
    p95_seconds: float | None = None
    max_duration: timedelta | None = None


class LineageEntry(_Row):
    """One row of ``actae.channel_lineage`` (the function, or the view it agrees with): an
    ancestor of a channel."""

    channel_id: str
    ancestor_channel_id: str
    generation: int
    inherited_cursor: int


class ExecutionLease(_Row):
    """One row of the ``actae.execution_leases`` view (no claim token)."""

    execution_id: UUID
    channel_id: str
    key_name: str
    tool_name: str
    status: str
    attempt: int
    fence: int
    ambiguous: bool
    lease_expires_at: datetime
    lease_state: str
    lease_remaining: timedelta | None = None
    claimed_at: datetime
    finished_at: datetime | None = None
    cancel_reason: str | None = None
