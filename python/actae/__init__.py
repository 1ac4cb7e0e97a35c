"""Actae: a PostgreSQL-native durable-execution ledger for AI agents.

The logic lives in PL/pgSQL (schema ``actae``); this package calls those functions and maps
their rows to frozen pydantic models.
"""

from importlib.metadata import PackageNotFoundError, version

from actae.client import ActaeClient, SyncActaeClient
from actae.console.models import (
    Annotation,
    ChannelSummary,
    DecisionTrail,
    ForkNode,
    StateChange,
    StateDiff,
    TimelineEntry,
)
from actae.context import ToolContext, compensation_key, idempotency_key
from actae.errors import (
    ActaeError,
    Cancelled,
    ConnectionFailed,
    ForkToolBlocked,
    IdempotencyConflict,
    InvalidInput,
    LeaseLost,
    NotFound,
    PermanentError,
    QuotaExceeded,
    ToolFailed,
    ToolInProgress,
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
from actae.runs import ClaimedRun, RunRecord, SleepResult, WaitResult
from actae.worker import Run, Worker

try:
    __version__ = version("actae")  # from the installed package's metadata
except PackageNotFoundError:  # imported from a checkout that was never installed
    __version__ = "0+unknown"

__all__ = [
    "Annotation",
    "ChannelSummary",
    "DecisionTrail",
    "ForkNode",
    "StateChange",
    "StateDiff",
    "TimelineEntry",
    "ActaeClient",
    "ActaeError",
    "Cancelled",
    "Channel",
    "Claim",
    "ClaimedRun",
    "ConnectionFailed",
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
    "QuotaExceeded",
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
