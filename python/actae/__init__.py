"""Actae: a PostgreSQL-native durable-execution ledger for AI agents.

The logic lives in PL/pgSQL (schema ``actae``); this package calls those functions and maps
their rows to frozen pydantic models.
"""

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
from actae.tools import (
    Cancelled,
    PermanentError,
    ToolContext,
    ToolInProgress,
    compensation_key,
    idempotency_key,
)

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
]
