"""Follow a channel's timeline as it grows: LISTEN/NOTIFY, never a polling loop.

The reader LISTENs on the channel's topic, registers with follow_channel (renewed before it
lapses), then reads the timeline; after that it reads again only when an append is
announced. Appends announce themselves while the channel is followed (sql/60_console.sql),
so a new event arrives without any table being polled. Tool-execution points do not notify
on their own: they show up with the next event.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator

from psycopg import sql

from actae import calls
from actae.client import ActaeClient
from actae.console.models import TimelineEntry

PAGE_ROWS = 500
#: the most rows one actae.timeline read may ask for
MAX_READ = 10_000


async def follow_timeline(
    client: ActaeClient,
    channel_id: str,
    after_clock: int | None = None,
    *,
    register_seconds: int = 60,
    max_rows: int = PAGE_ROWS,
) -> AsyncIterator[list[TimelineEntry]]:
    """Yield batches of timeline rows after after_clock: what is there now, then what each
    announced append brings. Each batch holds at most max_rows new rows (more only when one
    clock alone has more points, as actae.timeline returns a clock whole); a backlog larger
    than that comes as several batches, one after the other. No row comes twice and none is
    skipped: the last clock read is read again each time (an execution point may join it
    later, without announcing itself) and the rows already yielded at it are dropped
    (TimelineEntry.key). Holds one pooled connection while iterating."""
    async with client.pool.connection() as conn:
        if not conn.autocommit:
            await conn.set_autocommit(True)
        try:
            topic = await client.run(calls.channel_topic(channel_id, conn=conn))
            await conn.execute(sql.SQL("listen {}").format(sql.Identifier(topic)))
            await client.run(calls.follow_channel(channel_id, register_seconds, conn=conn))
            renew_at = time.monotonic() + register_seconds / 3
            last_clock: int | None = None  # the last clock yielded
            seen: set[str] = set()  # the keys yielded at last_clock
            while True:
                if time.monotonic() >= renew_at:  # a long backlog keeps the channel followed
                    await client.run(
                        calls.follow_channel(channel_id, register_seconds, conn=conn))
                    renew_at = time.monotonic() + register_seconds / 3
                if last_clock is None:
                    page = await client.run(
                        calls.timeline(channel_id, after_clock, max_rows, conn=conn))
                else:
                    # last_clock again, whole, with room for max_rows rows past what it held
                    limit = min(max_rows + len(seen), MAX_READ)
                    page = await client.run(calls.timeline(
                        channel_id, last_clock - 1 if last_clock > 0 else None, limit,
                        conn=conn))
                    if len(page) >= limit and all(r.key in seen for r in page):
                        # last_clock alone fills the largest read: go on past it
                        page = await client.run(
                            calls.timeline(channel_id, last_clock, max_rows, conn=conn))
                fresh = [r for r in page if r.key not in seen]
                if fresh:
                    # a page never splits a clock, so it holds its last clock whole
                    last_clock = max(r.clock for r in page)
                    seen = {r.key for r in page if r.clock == last_clock}
                    yield fresh
                    continue  # read again at once: a page can end short of max_rows
                announced = False
                while not announced:
                    wait = max(0.1, renew_at - time.monotonic())
                    async for _ in conn.notifies(timeout=wait, stop_after=1):
                        announced = True
                    if time.monotonic() >= renew_at:
                        await client.run(
                            calls.follow_channel(channel_id, register_seconds, conn=conn))
                        renew_at = time.monotonic() + register_seconds / 3
        finally:
            with contextlib.suppress(Exception):
                await conn.execute("unlisten *")
