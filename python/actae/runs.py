"""Frozen pydantic models for the rows of the run functions (SPEC section 7)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict

from actae.models import Execution

RunStatus = Literal["queued", "running", "sleeping", "waiting", "completed", "failed", "cancelled"]
WakeReason = Literal["start", "retry", "timer", "event", "timeout", "lease_expired"]


class _Row(BaseModel):
    model_config = ConfigDict(frozen=True, populate_by_name=True)


class RunRecord(_Row):
    """One run as the database holds it. ``outcome`` is what the call decided (start_run:
    started | replayed; claim_run: claimed | reclaimed; cancel_run: cancelled |
    cancel_requested | unchanged; None for the others). ``claim_token`` is set only for
    the owner."""

    outcome: str | None = None
    channel_id: str
    agent: str
    queue: str
    input: Any = None
    status: RunStatus
    claim_token: UUID | None = None
    worker: str | None = None
    fence: int
    attempt: int
    failures: int
    max_attempts: int
    lease_seconds: int | None = None
    lease_expires_at: datetime | None = None
    due_at: datetime | None = None
    wake_reason: WakeReason | None = None
    result: Any = None
    error: str | None = None
    cancel_requested: bool = False
    cancel_reason: str | None = None
    sleep_key: str | None = None
    wait_key: str | None = None
    wait_event_type: str | None = None
    created_at: datetime
    claimed_at: datetime | None = None
    heartbeat_at: datetime | None = None
    finished_at: datetime | None = None


class ClaimedRun(_Row):
    """claim_run and the first page of list_completed of the claimed run's channel, read in
    the same statement (``claim_run_with_completed``, ``claim_runs_with_completed``):
    ``completed`` is every completed execution the channel sees, by key_name, up to the
    page size asked for."""

    run: RunRecord
    completed: list[Execution]


class SleepResult(_Row):
    """sleep_run: ``elapsed`` (keep going), ``sleeping`` (parked; the token is dead) or
    ``cancelled`` (the run ended because its cancellation was requested)."""

    outcome: Literal["elapsed", "sleeping", "cancelled"]
    channel_id: str
    status: RunStatus
    key_name: str
    wake_at: datetime
    cursor: int | None = None


class WaitResult(_Row):
    """wait_for_event: ``received`` (cursor, payload, recorded_at of the event),
    ``timed_out`` (the deadline passed first), ``waiting`` (parked) or ``cancelled``."""

    outcome: Literal["received", "timed_out", "waiting", "cancelled"]
    channel_id: str
    status: RunStatus
    key_name: str
    event_type: str
    deadline: datetime
    cursor: int | None = None
    payload: Any = None
    recorded_at: datetime | None = None

    @property
    def received(self) -> bool:
        return self.outcome == "received"

    @property
    def timed_out(self) -> bool:
        return self.outcome == "timed_out"
