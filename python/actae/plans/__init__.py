"""Multi-step operations written once as plans, run by both clients.

A plan is a generator that yields steps — a ``Call`` to execute (its rows are sent back),
a ``Sleep``, an ``Emit`` of a value for the caller, or a ``LocalStep`` (work in this
process, such as starting a tool; see ``actae.plans.tools``) — and returns its result. The
async client drives plans with ``await``, the sync client with plain calls, so logic that
spans several round trips (paging, waiting, retrying) exists exactly once. Plans do no I/O
themselves: a test can drive one with scripted replies and no database.

* this module: the step types and ``iter_events``;
* ``actae.plans.tools``: ``run_tool`` and ``compensate``, the decision plan for tool calls.
  Its local steps are executed by ``actae._runtime`` (asyncio tasks and worker threads).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from actae import calls
from actae.models import Event

T = TypeVar("T")


@dataclass(frozen=True)
class Sleep:
    seconds: float


@dataclass(frozen=True)
class Emit(Generic[T]):
    value: T


class LocalStep:
    """A step that runs in this process rather than in the database (start a tool, wait for
    it, stop it, try a call). Plans only describe it; ``actae._runtime`` executes it, with
    asyncio under ActaeClient and with threads under SyncActaeClient."""


Step = calls.Call[Any] | Sleep | Emit[Any] | LocalStep
Plan = Generator[Step, Any, T]


def iter_events(
    channel_id: str, after_cursor: int = 0, page_size: int = 1000, conn: Any = None
) -> Plan[int]:
    """Emit every event after after_cursor in cursor order, page by page; return the last
    cursor seen."""
    while True:
        page: list[Event] = yield calls.list_events(channel_id, after_cursor, page_size, conn=conn)
        for event in page:
            yield Emit(event)
            after_cursor = event.cursor
        if len(page) < page_size:
            return after_cursor
