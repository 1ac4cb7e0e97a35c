"""Actae: a PostgreSQL-native durable-execution ledger for AI agents.

The logic lives in PL/pgSQL (schema ``actae``); this package calls those functions and maps
their rows to frozen pydantic models.
"""

from actae.client import ActaeClient, SyncActaeClient
from actae.errors import (
    ActaeError,
    ForkToolBlocked,
    IdempotencyConflict,
    InvalidInput,
    LeaseLost,
    NotFound,
    ToolFailed,
    VersionConflict,
)
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
from actae.runs import RunRecord, SleepResult, WaitResult
from actae.tools import (
    Cancelled,
    PermanentError,
    ToolContext,
    ToolInProgress,
    compensation_key,
    idempotency_key,
)
from actae.worker import Run, Worker

__all__ = [
    "ActaeClient",
    "ActaeError",
    "Cancelled",
    "Channel",
    "Claim",
    "Event",
    "EventRecorded",
    "Execution",
    "ForkResult",
    "ForkToolBlocked",
    "IdempotencyConflict",
    "InvalidInput",
    "LeaseLost",
    "NotFound",
    "PermanentError",
    "StateSnapshot",
    "SyncActaeClient",
    "ToolContext",
    "ToolFailed",
    "ToolInProgress",
    "Transition",
    "VersionConflict",
    "compensation_key",
    "idempotency_key",
    "Run",
    "RunRecord",
    "SleepResult",
    "WaitResult",
    "Worker",
]
