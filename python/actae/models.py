"""Frozen pydantic models for the rows Actae's functions return."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

ClaimOutcome = Literal["claimed", "replayed", "reclaimed", "in_progress", "failed"]
ExecutionStatus = Literal["claimed", "in_progress", "completed", "failed", "cancelled"]


class _Row(BaseModel):
    model_config = ConfigDict(frozen=True, populate_by_name=True)


class Execution(_Row):
    """One side-effecting tool call in the ledger (its lifecycle status, not a claim outcome)."""

    id: UUID = Field(alias="execution_id")
    channel_id: str
    key_name: str
    tool_name: str
    status: ExecutionStatus
    claim_token: UUID | None
    fence: int
    attempt: int
    lease_expires_at: datetime
    params: dict[str, Any]
    fingerprint: str
    result: Any = None
    error: str | None = None
    ambiguous: bool = False
    retryable: bool | None = None
    dedup_fields: list[str] | None = None
    lease_seconds: int
    created_at: datetime
    claimed_at: datetime
    heartbeat_at: datetime | None = None
    finished_at: datetime | None = None
    cancel_requested: bool = False
    cancel_reason: str | None = None

    @property
    def execution_id(self) -> UUID:
        return self.id


class Claim(_Row):
    """What claim_execution decided. ``status`` is the claim outcome; ``execution.status`` is
    the lifecycle status of the row."""

    status: ClaimOutcome
    execution: Execution

    @property
    def claim_token(self) -> UUID | None:
        """The caller's token when it owns the lease (claimed / reclaimed), else None."""
        return self.execution.claim_token

    @property
    def result(self) -> Any:
        return self.execution.result

    @property
    def error(self) -> str | None:
        return self.execution.error

    @property
    def fence(self) -> int:
        return self.execution.fence

    @property
    def ambiguous(self) -> bool:
        return self.execution.ambiguous

    @property
    def lease_expires_at(self) -> datetime:
        return self.execution.lease_expires_at

    @property
    def owned(self) -> bool:
        """True when the caller must run the tool now (claimed or reclaimed)."""
        return self.status in ("claimed", "reclaimed")


class Channel(_Row):
    channel_id: str
    head_cursor: int
    state_version: int
    parent_channel_id: str | None = None
    fork_cursor: int | None = None
    created_at: datetime
    lineage: list[str]
    head_chain_sha256: str
    fork_prefix_sha256: str | None = None
    tool_policies: dict[str, str] | None = None
    metadata: dict[str, Any]
    closed_at: datetime | None = None
    key_ttl: timedelta | None = None


class Event(_Row):
    cursor: int
    event_type: str
    payload: Any
    operation_id: str | None = None
    recorded_at: datetime
    chain_sha256: str


class StateSnapshot(_Row):
    version: int
    cursor: int
    state: Any


class EventRecorded(_Row):
    cursor: int
    outcome: Literal["recorded", "replayed"]
    recorded_at: datetime


class Transition(_Row):
    cursor: int
    version: int
    outcome: Literal["transitioned", "replayed"]
    recorded_at: datetime


class ForkResult(_Row):
    channel_id: str
    source_channel_id: str
    fork_cursor: int
    version: int
    prefix_sha256: str
    tool_policies: dict[str, str] | None = None
    outcome: Literal["forked", "replayed"]


class ExecutionTrace(_Row):
    """The W3C traceparent recorded for one attempt (fence) of an execution (actae.otel)."""

    execution_id: UUID
    channel_id: str
    fence: int
    traceparent: str
    recorded_at: datetime
