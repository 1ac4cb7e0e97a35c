"""What the agent-framework integrations (actae.pydantic_ai, actae.openai_agents) share: the
Actae ToolContext of the tool call running, and the model turns a run has recorded."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

from actae.client import ActaeClient
from actae.context import ToolContext
from actae.errors import NotFound

_current: contextvars.ContextVar[ToolContext | None] = contextvars.ContextVar(
    "actae_current_tool", default=None
)


def current_tool() -> ToolContext | None:
    """The Actae ToolContext of the durable tool call running in this task (None outside
    one): ``current_tool().idempotency_key`` is what to hand the provider."""
    return _current.get()


@contextlib.contextmanager
def running(ctx: ToolContext) -> Iterator[None]:
    """Make ``ctx`` the current tool while the tool body runs."""
    token = _current.set(ctx)
    try:
        yield
    finally:
        _current.reset(token)


async def recorded_turns(client: ActaeClient, channel_id: str, event_type: str) -> dict[str, Any]:
    """operation_id -> payload of the channel's events of ``event_type`` (a fork's inherited
    prefix included); empty for a channel that does not exist yet."""
    recorded: dict[str, Any] = {}
    try:
        async for event in client.iter_events(channel_id):
            if event.event_type == event_type and event.operation_id:
                recorded[event.operation_id] = event.payload
    except NotFound:
        pass  # a new run: its channel is created by its first event
    return recorded
