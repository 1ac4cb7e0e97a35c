"""Small helpers shared by the driver's end-to-end tests (all against real PostgreSQL).

Async tests are plain functions that run a coroutine with ``run``; there is no event-loop
plugin. ``fold_chain`` recomputes Actae's hash chain the way SPEC section 3a defines it, so a
test can verify list_events and a fork receipt independently of the SQL that wrote them.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import psycopg
from psycopg.types.json import Jsonb

from actae import ActaeClient, Event, ToolContext

T = TypeVar("T")


def alive(pid: int) -> bool:
    """Whether process ``pid`` still exists."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def run(coro: Awaitable[T], timeout: float = 30.0) -> T:
    """Run one coroutine to completion on a fresh event loop, bounded in time."""

    async def bounded() -> T:
        return await asyncio.wait_for(coro, timeout)

    return asyncio.run(bounded())


def with_client(dsn: str, body: Callable[[ActaeClient], Awaitable[T]], **kwargs: Any) -> T:
    """Open an ActaeClient on dsn, run body(client), close the client."""

    async def main() -> T:
        async with ActaeClient(dsn, **kwargs) as client:
            return await body(client)

    return run(main())


def jsonb_texts(dsn: str, payloads: Sequence[Any]) -> list[str]:
    """PostgreSQL's own jsonb text form of each payload (what the hash chain hashes)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute(
            "select e.value::text from jsonb_array_elements(%s::jsonb)"
            " with ordinality as e (value, n) order by e.n",
            (Jsonb(list(payloads)),),
        ).fetchall()
    return [row[0] for row in rows]


def chain_step(previous: str, cursor: int, event_type: str, payload_text: str) -> str:
    """sha256(previous || ':' || cursor || ':' || event_type || ':' || payload::text)."""
    data = f"{previous}:{cursor}:{event_type}:{payload_text}".encode()
    return hashlib.sha256(data).hexdigest()


def fold_chain(dsn: str, events: Sequence[Event], start: str = "") -> list[str]:
    """The chain value after each event, recomputed from the events alone."""
    texts = jsonb_texts(dsn, [e.payload for e in events])
    values: list[str] = []
    previous = start
    for event, text in zip(events, texts, strict=True):
        previous = chain_step(previous, event.cursor, event.event_type, text)
        values.append(previous)
    return values


async def all_events(client: ActaeClient, channel_id: str, after_cursor: int = 0) -> list[Event]:
    """Every event of a channel (paged through iter_events)."""
    return [e async for e in client.iter_events(channel_id, after_cursor)]


def db_now_minus(dsn: str, timestamp: Any) -> float:
    """Seconds from `timestamp` to the database clock, actae._now() (positive when it is in
    the past)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "select extract(epoch from actae._now() - %s::timestamptz)::float8",
            (timestamp,),
        ).fetchone()
    assert row is not None
    return float(row[0])


def move_clock_past(dsn: str, timestamp: Any, margin: float = 0.05) -> None:
    """Move the database clock (actae._now(), which every Actae function reads) just past
    `timestamp`, e.g. a lease expiry, instead of sleeping until then. Needs the test
    database's superuser (actae._set_test_clock); every session sees the moved clock at
    once. Tests that use it put the real clock back afterwards (reset_clock)."""
    remaining = -db_now_minus(dsn, timestamp)
    if remaining <= -margin:
        return
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            "select actae._set_test_clock("
            " actae._now() - clock_timestamp() + make_interval(secs => %s))",
            (remaining + margin,),
        )


def reset_clock(dsn: str) -> None:
    """Put the real clock back under actae._now()."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("select actae._set_test_clock(null)")


def endless_tool(flavor: str, started: threading.Event, stopped: threading.Event) -> Any:
    """A tool that runs until it is told to stop: sync ("sync": polls ctx.should_stop())
    or async (sleeps until cancelled); `started` is set when it begins, `stopped` when it
    stops."""
    if flavor == "sync":

        def endless(ctx: ToolContext) -> Any:
            started.set()
            while not ctx.should_stop():
                time.sleep(0.02)
            stopped.set()
            return "gave up"

        return endless

    async def aendless(ctx: ToolContext) -> Any:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            stopped.set()
            raise
        return "finished"

    return aendless
