"""Follow a channel's timeline as it grows: LISTEN/NOTIFY, not a polling loop.

The reader LISTENs on the channel's topic, registers with follow_channel (renewed before it
lapses), then reads the timeline; after that it reads again when an append is announced, after
each renewal (every third of the registration), and SETTLE_SECONDS / 2 to SETTLE_SECONDS after
a read that moved past a clock. Appends announce themselves while the channel is followed
(sql/60_console.sql), so a new event arrives without any table being polled; the read after a
renewal catches an append that could not announce itself (a registration that lapsed while
the process was suspended, a server whose notification queue is more than half full).

Tool-execution points do not notify on their own: they show up with the next read. A claim,
failure or cancellation has no clock of its own: the timeline places it at the clock of the
last event recorded before it began, so when it commits after a later event was read it
belongs behind rows already yielded. The settling read goes back to where the reader stood
before that later event, and yields such a point late (after rows of higher clocks) when it
committed within SETTLE_SECONDS / 2 of it; one committing later than that (a claim inside a
caller's long transaction) is only in a fresh read of the timeline.
"""

from __future__ import annotations

import bisect
import contextlib
import time
from collections import deque
from collections.abc import AsyncGenerator
from dataclasses import dataclass
from typing import Any, LiteralString

from psycopg import sql

from actae import calls
from actae.client import ActaeClient
from actae.console.models import TimelineEntry


@dataclass(frozen=True)
class Recreated:
    """Yielded by follow_timeline when the channel was purged and created again under its id:
    the rows yielded before it were the old channel's; the batches after it are the new
    channel's, from its start (a page or a terminal showing the old rows clears them)."""

    channel_id: str


class _TopicChanged(Exception):
    """A read found the channel's topic changed: it was purged, and maybe created again
    under its id (a new channel has a new topic; one no longer there answers a decoy)."""


# A page and the channel's topic as of that page (calls.with_topic; a channel no longer
# there answers a decoy topic, which differs too).
_READ: LiteralString = calls.with_topic(calls.TIMELINE)


def _page(rows: list[Any]) -> tuple[str | None, list[TimelineEntry]]:
    return (rows[0]["topic"] if rows else None,
            [TimelineEntry.model_validate(r) for r in rows if r["clock"] is not None])


class _Seen:
    """The rows yielded, by clock, for the clocks a read may go back over: a membership
    test, the number at clocks after a cursor and forgetting the clocks below one, each
    without a pass over every key (a busy channel keeps thousands in a settle window)."""

    def __init__(self) -> None:
        self._keys: dict[str, int] = {}  # key: clock
        self._clocks: list[int] = []  # a row's clock once per key, sorted
        self._by_clock: dict[int, list[str]] = {}

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def add(self, row: TimelineEntry) -> None:
        """Remember a row, or move it to the clock it is at now: a claim or failure is at
        the clock of the last event recorded before it began, and an event recorded
        earlier can commit later."""
        known = self._keys.get(row.key)
        if known is not None:
            if known == row.clock:
                return
            self._clocks.pop(bisect.bisect_left(self._clocks, known))
            self._by_clock[known].remove(row.key)
            if not self._by_clock[known]:
                del self._by_clock[known]
        self._keys[row.key] = row.clock
        bisect.insort(self._clocks, row.clock)
        self._by_clock.setdefault(row.clock, []).append(row.key)

    def after(self, cursor: int | None) -> int:
        """How many keys are at clocks after cursor (all of them for None)."""
        if cursor is None:
            return len(self._clocks)
        return len(self._clocks) - bisect.bisect_right(self._clocks, cursor)

    def forget_below(self, clock: int) -> None:
        cut = bisect.bisect_left(self._clocks, clock)
        for old in dict.fromkeys(self._clocks[:cut]):
            for key in self._by_clock.pop(old):
                del self._keys[key]
        del self._clocks[:cut]


PAGE_ROWS = 500
#: the most rows one actae.timeline read may ask for
MAX_READ = 10_000
#: how long after a read the rows it moved past are read again (see the module docstring)
SETTLE_SECONDS = 5.0


async def follow_timeline(
    client: ActaeClient,
    channel_id: str,
    after_clock: int | None = None,
    *,
    register_seconds: int = 60,
    max_rows: int = PAGE_ROWS,
    settle_seconds: float = SETTLE_SECONDS,
) -> AsyncGenerator[list[TimelineEntry] | Recreated, None]:
    """Yield batches of timeline rows after after_clock: what is there now, then what each
    read brings (see the module docstring). Each batch holds at most max_rows new rows (more
    only when one clock alone has more points, as actae.timeline returns a clock whole); a
    backlog larger than that comes as several batches, one after the other. No row comes
    twice (TimelineEntry.key): each read goes back over the last clock yielded (a settling
    read further) and drops the rows already yielded there, wherever their clock has moved
    since. When the channel is purged and created again under its id (a renewal, or a read,
    which reads the channel's topic with its page, finds another topic), the reader yields
    Recreated, listens to the new channel and follows it from its start; a channel purged
    and not created again ends the iteration with NotFound. Holds one pooled connection
    while iterating."""
    async with client.pool.connection() as conn:
        if not conn.autocommit:
            await conn.set_autocommit(True)

        async def listen(topic: str) -> None:
            await conn.execute(sql.SQL("listen {}").format(sql.Identifier(topic)))

        async def register() -> str:
            return await client.run(
                calls.follow_channel(channel_id, register_seconds, conn=conn))

        async def read(floor: int | None) -> tuple[list[TimelineEntry], int | None]:
            """Rows not yielded yet from clock floor on (after after_clock when None), at
            least max_rows of them when there are, past rows already yielded; and the clock
            the read stopped at when rows may be left after it (None: it read to the end)."""
            cursor = after_clock if floor is None else (floor - 1 if floor > 0 else None)
            fresh: list[TimelineEntry] = []
            while True:
                limit = min(max_rows + seen.after(cursor), MAX_READ)
                now_topic, page = await client.run(calls.Call(_READ, {
                    "channel_id": channel_id, "after_clock": cursor, "max_rows": limit,
                }, _page, conn))
                if now_topic != topic:
                    raise _TopicChanged
                new: list[TimelineEntry] = []
                for row in page:
                    if row.key in seen:
                        seen.add(row)  # at the clock it is at now
                    else:
                        new.append(row)
                fresh += new
                if len(page) >= limit:
                    cursor = max(r.clock for r in page)  # a page holds its last clock whole
                    if len(fresh) >= max_rows:
                        return fresh, cursor
                elif new or not page:
                    return fresh, None
                else:
                    # Rows already yielded only, and fewer than asked: the end, or a next
                    # clock with more points than were left to ask for (a page holds its
                    # first clock whole, and stops before a later one that does not fit).
                    # Read on after them: that clock comes whole, or nothing does.
                    cursor = max(r.clock for r in page)

        try:
            topic = await client.run(calls.channel_topic(channel_id, conn=conn))
            await listen(topic)
            await register()
            renew_at = time.monotonic() + register_seconds / 3
            last_clock: int | None = None  # the highest clock yielded
            seen = _Seen()  # keys yielded at clocks a read may go back over
            settles: deque[tuple[float, int | None]] = deque()  # (due, floor) of reads to come
            while True:
                now = time.monotonic()
                registered = topic
                if now >= renew_at:
                    registered = await register()
                    renew_at = now + register_seconds / 3
                fresh: list[TimelineEntry] = []
                stopped: int | None = None
                recreated = registered != topic
                if not recreated:
                    floor = last_clock
                    while settles and settles[0][0] <= now:
                        due_floor = settles.popleft()[1]
                        floor = due_floor if due_floor is None or floor is None else min(
                            floor, due_floor)
                    try:
                        fresh, stopped = await read(floor)
                    except _TopicChanged:
                        registered = await register()
                        renew_at = now + register_seconds / 3
                        recreated = True
                if recreated:  # purged, then created again: follow the new one from its start
                    if registered != topic:
                        await listen(registered)
                        await conn.execute(sql.SQL("unlisten {}").format(sql.Identifier(topic)))
                        topic = registered
                    after_clock, last_clock, seen = None, None, _Seen()
                    settles.clear()
                    yield Recreated(channel_id)
                    continue
                if stopped is not None and last_clock is not None and stopped < last_clock:
                    settles.appendleft((now, stopped + 1))  # the rest of a settling read
                if fresh:
                    before = last_clock
                    top = max(r.clock for r in fresh)
                    if before is None or top > before:
                        last_clock = top
                        # a read moved past clocks: read them again once they settle (at
                        # most one pending read a half-settle, which reads from the lowest)
                        if not settles or settles[-1][0] <= now + settle_seconds / 2:
                            settles.append((now + settle_seconds, before))
                    for row in fresh:
                        seen.add(row)
                    # forget the keys no read will go back over
                    floors = [last_clock, *(f for _, f in settles)]
                    if None not in floors:
                        seen.forget_below(min(f for f in floors if f is not None))
                    yield fresh
                    continue  # read again at once: a page can end short of max_rows
                # Wait for an announced append, the next renewal or the next settling read.
                wake = min(renew_at, settles[0][0]) if settles else renew_at
                announced = False
                async for _ in conn.notifies(timeout=max(0.05, wake - time.monotonic()),
                                             stop_after=1):
                    announced = True
                if announced:  # and the announcements queued meanwhile: one read serves all
                    async for _ in conn.notifies(timeout=0):
                        pass
        finally:
            with contextlib.suppress(Exception):
                await conn.execute("unlisten *")
