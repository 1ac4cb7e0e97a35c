"""What a tool receives (ToolContext) and the keys Actae derives for it.

Idempotency key (``ctx.idempotency_key``, see :func:`idempotency_key`):
``"actae-" + sha256(channel_id + "\\0" + key_name)`` in hex, where channel_id is the channel the
execution runs in. It is the same on every retry and reclaim of the execution, so a
provider that deduplicates on it performs the effect once. A fork replays the results it
inherits without calling the tool; a tool the fork runs itself (after the fork point, or
under a ``live`` tool policy) is a new effect of a new run, so it gets the fork's own key:
reusing the ancestor's key would make a deduplicating provider return the ancestor's old
answer and silently turn ``live`` into ``replay``. Forbid a tool in a fork with ``block``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from actae.models import Execution

#: A tool: ``tool(ctx) -> result`` or ``async def tool(ctx) -> result`` (an object whose
#: ``__call__`` is ``async def`` is an async tool too: ActaeClient awaits it on the caller's
#: loop, sync tools run in a worker thread); the result must be JSON-serialisable (it is
#: stored as jsonb and replayed as its JSON form).
Tool = Callable[["ToolContext"], Any]


def idempotency_key(channel_id: str, key_name: str) -> str:
    """The key a tool passes to its provider: stable across retries and reclaims of one
    execution; a fork's own executions get their own (see the module docstring)."""
    digest = hashlib.sha256(f"{channel_id}\0{key_name}".encode()).hexdigest()
    return f"actae-{digest}"


def compensation_key(key_name: str) -> str:
    """The key_name under which the compensation of ``key_name`` is recorded."""
    return f"compensate:{key_name}"


@dataclass(frozen=True)
class ToolContext:
    """What a tool gets: its arguments, the key to hand to the provider, and the fence."""

    channel_id: str
    key_name: str
    tool_name: str
    params: dict[str, Any]
    #: pass to the provider (e.g. an Idempotency-Key header); see idempotency_key().
    idempotency_key: str
    #: grows by one on every change of ownership: a downstream system that remembers the
    #: highest fence it has seen for this key can reject writes from a stale attempt.
    fence: int
    execution_id: UUID
    claim_token: UUID
    attempt: int
    #: the previous attempt ended without a recorded outcome (its effect may have happened).
    ambiguous: bool
    #: for a compensating tool: the completed execution being compensated.
    original: Execution | None = None
    # A plain flag: it only ever turns true, and reading or writing one attribute is atomic
    # across threads (a threading.Event per call cost more than the flag's one use).
    _stop: bool = field(default=False, init=False, repr=False, compare=False)

    def should_stop(self) -> bool:
        """True once run_tool has stopped waiting for this tool (cancelled or lease lost);
        a long sync tool can poll it and return early."""
        return self._stop

    def request_stop(self) -> None:
        """Make should_stop() true: run_tool calls it when it stops waiting for the tool."""
        object.__setattr__(self, "_stop", True)  # the dataclass is frozen for its callers
