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


async def follow_timeline(
    client: ActaeClient,
    channel_id: str,
    after_clock: int | None = None,
    *,
    register_seconds: int = 60,
    max_rows: int = PAGE_ROWS,
) -> AsyncIterator[list[TimelineEntry]]:
    """Yield batches of timeline rows after after_clock: what is there now, then what each
    announced append brings. Each batch is one read of at most max_rows rows (more only when
    one clock alone has more points, as actae.timeline returns a clock whole); a backlog
    larger than that comes as several batches, one after the other. The last clock read is
    read again each time (an execution point may join it later), so a row can come twice:
    TimelineEntry.key tells them apart. Holds one pooled connection while iterating."""
    async with client.pool.connection() as conn:
        if not conn.autocommit:
            await conn.set_autocommit(True)
        try:
            topic = await client.run(calls.channel_topic(channel_id, conn=conn))
            await conn.execute(sql.SQL("listen {}").format(sql.Identifier(topic)))
            await client.run(calls.follow_channel(channel_id, register_seconds, conn=conn))
            renew_at = time.monotonic() + register_seconds / 3
            while True:
                if time.monotonic() >= renew_at:  # a long backlog keeps the channel followed
                    await client.run(
                        calls.follow_channel(channel_id, register_seconds, conn=conn))
                    renew_at = time.monotonic() + register_seconds / 3
                page = await client.run(
                    calls.timeline(channel_id, after_clock, max_rows, conn=conn))
                if len(page) >= max_rows:
                    # a full page: more may follow at once; pages never split a clock
                    after_clock = page[-1].clock
                    yield page
                    continue
                if page:
                    after_clock = page[-1].clock - 1 if page[-1].clock > 0 else None
                    yield page
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
