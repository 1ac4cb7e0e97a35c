"""follow_timeline (actae timeline --follow, the console's live view) when what it follows does
not announce itself: a claim that commits after a later event, an append made while the
registration had lapsed, a channel purged and created again under its id."""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator
from typing import IO

import psycopg
import pytest

from actae import ActaeClient
from actae.console.live import Recreated, follow_timeline
from actae.console.models import TimelineEntry
from tests.python.support.databases import fresh_database

# The follower's reading and waiting, over actae.timeline, which the other console tests
# run on every server: make test's first pass only.
pytestmark = pytest.mark.once

Rows = list[tuple[int, str, str | None]]


def rows(batch: list[TimelineEntry] | Recreated) -> Rows:
    if isinstance(batch, Recreated):
        return [(0, "recreated", batch.channel_id)]
    return [(r.clock, r.kind, r.event_type or r.key_name) for r in batch]


class Follower:
    """follow_timeline read in a task of its own into a queue, so waiting for rows with a
    timeout never cancels the follow itself."""

    def __init__(self, batches: AsyncIterator[list[TimelineEntry] | Recreated]) -> None:
        self.queue: asyncio.Queue[list[TimelineEntry] | Recreated] = asyncio.Queue()
        self.task = asyncio.ensure_future(self._read(batches))

    async def _read(self, batches: AsyncIterator[list[TimelineEntry] | Recreated]) -> None:
        async for batch in batches:
            await self.queue.put(batch)

    async def collect(self, want: int, seconds: float) -> Rows:
        """Rows from the next batches until `want` of them came or `seconds` passed."""
        got: Rows = []
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                while len(got) < want:
                    got += rows(await self.queue.get())
        return got

    async def close(self) -> None:
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


def test_a_claim_committed_after_a_later_event_comes_late(dsn: str) -> None:
    channel = f"cf-late-{uuid.uuid4().hex[:8]}"

    async def run() -> tuple[Rows, Rows, Rows]:
        async with ActaeClient(dsn, max_size=2) as client:
            await client.record_event(channel, "e", {"i": 0})
            follow = Follower(follow_timeline(client, channel, None, settle_seconds=1.0))
            first = await follow.collect(1, 10)
            with psycopg.connect(dsn) as claimer:  # a claim begun before the next event
                claimer.execute("select actae.claim_execution(%s, 'late', 't', '{}')",
                                (channel,))
                await client.record_event(channel, "e", {"i": 1})
                ahead = await follow.collect(1, 10)
                claimer.commit()
            late = await follow.collect(1, 10)
            late += await follow.collect(1, 1.5)  # and nothing comes twice
            await follow.close()
            return first, ahead, late

    first, ahead, late = asyncio.run(run())
    assert first == [(1, "event", "e")]
    assert ahead == [(2, "event", "e")]
    assert late == [(1, "claimed", "late")]  # its clock: the last event before it began


def test_an_append_made_while_the_registration_had_lapsed_is_read(dsn: str) -> None:
    channel = f"cf-lapse-{uuid.uuid4().hex[:8]}"

    async def run() -> tuple[Rows, Rows]:
        async with ActaeClient(dsn, max_size=2) as client:
            await client.record_event(channel, "e", {"i": 0})
            follow = Follower(follow_timeline(client, channel, None, register_seconds=3))
            first = await follow.collect(1, 10)
            waiting = asyncio.ensure_future(follow.collect(1, 10))
            await asyncio.sleep(0.5)  # the reader waits for an announcement
            with psycopg.connect(dsn, autocommit=True) as admin:  # as after a long suspend
                admin.execute("update actae.channels set watched_until = now() - interval"
                              " '1 second' where channel_id = %s", (channel,))
            await client.record_event(channel, "e", {"i": 1})  # announces nothing
            after = await waiting
            await follow.close()
            return first, after

    first, after = asyncio.run(run())
    assert first == [(1, "event", "e")]
    assert after == [(2, "event", "e")]


def test_a_channel_purged_and_created_again_is_followed_anew(dsn: str) -> None:
    """Found by a settling read (the registration renews much later): the new channel's
    rows come once each, from its start."""
    async def run(scratch: str) -> tuple[Rows, Rows, Rows]:
        async with ActaeClient(scratch, max_size=2) as client:
            for _ in range(3):
                await client.record_event("reused", "old", {})
            follow = Follower(follow_timeline(client, "reused", None, register_seconds=60,
                                              settle_seconds=1.0))
            first = await follow.collect(3, 10)
            await client.close_channel("reused")
            result = await client.purge("0 seconds")
            assert result.channels == 1
            await client.record_event("reused", "new", {})
            await client.record_event("reused", "new", {})
            after = await follow.collect(3, 10)
            after += await follow.collect(1, 1.5)  # nothing twice
            await client.record_event("reused", "new", {})
            last = await follow.collect(1, 10)
            last += await follow.collect(1, 1.5)
            await follow.close()
            return first, after, last

    with fresh_database(dsn) as scratch:
        first, after, last = asyncio.run(run(scratch))
    assert first == [(1, "event", "old"), (2, "event", "old"), (3, "event", "old")]
    # the follower is told before the new channel's rows (a page clears the old ones)
    assert after == [(0, "recreated", "reused"), (1, "event", "new"), (2, "event", "new")]
    assert last == [(3, "event", "new")]


def test_a_point_whose_clock_moves_up_comes_once(dsn: str) -> None:
    """A claim read at the clock of the last event committed before it, then an event
    recorded before the claim began commits: the claim is at that event's clock now, and
    is not yielded again."""
    channel = f"cf-move-{uuid.uuid4().hex[:8]}"

    async def run() -> tuple[Rows, Rows, Rows, Rows]:
        async with ActaeClient(dsn, max_size=2) as client:
            await client.record_event(channel, "e1", {})
            follow = Follower(follow_timeline(client, channel, None, settle_seconds=1.0))
            first = await follow.collect(1, 10)
            with psycopg.connect(dsn) as writer:  # e2 recorded, not committed yet
                writer.execute("select actae.record_event(%s, 'e2', '{}')", (channel,))
                with psycopg.connect(dsn, autocommit=True) as claimer:
                    claimer.execute("select actae.claim_execution(%s, 'x', 't', '{}')",
                                    (channel,))
                claimed = await follow.collect(1, 10)  # by the first read's settling read
                writer.commit()
            moved = await follow.collect(1, 10)
            moved += await follow.collect(1, 2.5)  # the claim does not come again
            await client.record_event(channel, "e3", {})
            last = await follow.collect(1, 10)
            last += await follow.collect(1, 1.5)
            await follow.close()
            return first, claimed, moved, last

    first, claimed, moved, last = asyncio.run(run())
    assert first == [(1, "event", "e1")]
    assert claimed == [(1, "claimed", "x")]
    assert moved == [(2, "event", "e2")]
    assert last == [(3, "event", "e3")]


def test_a_clock_with_more_points_than_a_batch_is_read(dsn: str) -> None:
    """A page stops before a clock that does not fit in what is left of it: the follower
    reads on after its rows, where that clock comes whole, instead of taking the short page
    for the end."""
    channel = f"cf-wide-{uuid.uuid4().hex[:8]}"

    async def run() -> Rows:
        async with ActaeClient(dsn, max_size=2) as client:
            await client.record_event(channel, "e1", {})
            await client.record_event(channel, "e2", {})
            for key in ("a", "b", "c"):
                await client.claim_execution(channel, key, "t", {})
            follow = Follower(follow_timeline(client, channel, None, max_rows=2))
            got = await follow.collect(5, 10)
            got += await follow.collect(1, 1.5)
            await follow.close()
            return got

    got = asyncio.run(run())
    assert sorted(got) == [(1, "event", "e1"), (2, "claimed", "a"), (2, "claimed", "b"),
                           (2, "claimed", "c"), (2, "event", "e2")]


class Lines:
    """A child's output pipe read line by line with a deadline (a line that never comes
    fails the test instead of blocking it)."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.fd = stream.fileno()
        self.pending = b""

    def next(self, seconds: float = 15) -> str:
        deadline = time.monotonic() + seconds
        while b"\n" not in self.pending:
            ready, _, _ = select.select([self.fd], [], [], max(0, deadline - time.monotonic()))
            chunk = os.read(self.fd, 65536) if ready else b""
            if not chunk:
                raise AssertionError(f"no line within {seconds} s: {self.pending!r}")
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return line.decode()


def test_cli_follow_through_a_pipe_prints_each_batch_and_says_when_the_channel_is_new(
    dsn: str,
) -> None:
    """`actae timeline --follow | …` without PYTHONUNBUFFERED: each batch reaches the pipe
    when it is read (it reached it only at exit, so a reader saw nothing); when the channel
    is purged and created again, stderr says so and the new channel's rows come under a
    header of their own. A follower whose stderr is a pipe closed by its reader ends there
    as a broken pipe does (status 141; it was 120, Python failing to flush stderr)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    with fresh_database(dsn) as scratch, psycopg.connect(scratch, autocommit=True) as conn:
        conn.execute("select actae.record_event('piped', 'old', '{}')")
        command = [sys.executable, "-m", "actae", "timeline", "piped", "--follow",
                   "--dsn", scratch]
        follower = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    env=env)
        unread = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  env=env)
        assert unread.stdout is not None and unread.stderr is not None
        unread.stderr.close()  # its reader is gone
        try:
            assert follower.stdout is not None and follower.stderr is not None
            out, err = Lines(follower.stdout), Lines(follower.stderr)
            assert out.next().startswith("CLOCK")
            assert " old " in out.next()
            unread_out = Lines(unread.stdout)
            assert unread_out.next().startswith("CLOCK")
            assert " old " in unread_out.next()  # it follows the old channel, too
            conn.execute("select actae.record_event('piped', 'older', '{}')")
            assert " older " in out.next()
            with conn.transaction():  # no read sees it purged and not created again
                conn.execute("select actae.close_channel('piped')")
                conn.execute("select actae.purge('0 seconds')")
                conn.execute("select actae.record_event('piped', 'new', '{}')")
            assert "was purged and created again" in err.next()
            assert out.next().startswith("CLOCK")
            line = out.next()
            assert line.split()[0] == "1" and " new " in line
            assert unread.wait(20) == 141
        finally:
            for process in (follower, unread):
                if process.poll() is None:
                    process.terminate()
                    process.wait(10)
