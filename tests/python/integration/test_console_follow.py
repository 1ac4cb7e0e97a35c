"""follow_timeline (actae timeline --follow, the console's live view) when what it follows does
not announce itself: a claim that commits after a later event, an append made while the
registration had lapsed, a channel purged and created again under its id."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator

import psycopg

from actae import ActaeClient
from actae.console.live import follow_timeline
from actae.console.models import TimelineEntry
from tests.python.support.databases import fresh_database

Rows = list[tuple[int, str, str | None]]


def rows(batch: list[TimelineEntry]) -> Rows:
    return [(r.clock, r.kind, r.event_type or r.key_name) for r in batch]


async def collect(batches: AsyncIterator[list[TimelineEntry]], want: int,
                  seconds: float) -> Rows:
    """Rows from the next batches until `want` of them came or `seconds` passed."""
    got: Rows = []
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            while len(got) < want:
                got += rows(await anext(batches))
    return got


def test_a_claim_committed_after_a_later_event_comes_late(dsn: str) -> None:
    channel = f"cf-late-{uuid.uuid4().hex[:8]}"

    async def run() -> tuple[Rows, Rows, Rows]:
        async with ActaeClient(dsn, max_size=2) as client:
            await client.record_event(channel, "e", {"i": 0})
            batches = follow_timeline(client, channel, None, settle_seconds=1.0)
            first = await collect(batches, 1, 10)
            with psycopg.connect(dsn) as claimer:  # a claim begun before the next event
                claimer.execute("select actae.claim_execution(%s, 'late', 't', '{}')",
                                (channel,))
                await client.record_event(channel, "e", {"i": 1})
                ahead = await collect(batches, 1, 10)
                claimer.commit()
            late = await collect(batches, 1, 10)
            late += await collect(batches, 1, 3)  # and nothing comes twice
            await batches.aclose()
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
            batches = follow_timeline(client, channel, None, register_seconds=3)
            first = await collect(batches, 1, 10)
            waiting = asyncio.ensure_future(collect(batches, 1, 10))
            await asyncio.sleep(0.5)  # the reader waits for an announcement
            with psycopg.connect(dsn, autocommit=True) as admin:  # as after a long suspend
                admin.execute("update actae.channels set watched_until = now() - interval"
                              " '1 second' where channel_id = %s", (channel,))
            await client.record_event(channel, "e", {"i": 1})  # announces nothing
            after = await waiting
            await batches.aclose()
            return first, after

    first, after = asyncio.run(run())
    assert first == [(1, "event", "e")]
    assert after == [(2, "event", "e")]


def test_a_channel_purged_and_created_again_is_followed_anew(dsn: str) -> None:
    async def run(scratch: str) -> tuple[Rows, Rows]:
        async with ActaeClient(scratch, max_size=2) as client:
            await client.record_event("reused", "old", {})
            batches = follow_timeline(client, "reused", None, register_seconds=3)
            first = await collect(batches, 1, 10)
            await client.close_channel("reused")
            result = await client.purge("0 seconds")
            assert result.channels == 1
            await client.record_event("reused", "new", {})
            await client.record_event("reused", "new", {})
            after = await collect(batches, 2, 10)
            await batches.aclose()
            return first, after

    with fresh_database(dsn) as scratch:
        first, after = asyncio.run(run(scratch))
    assert first == [(1, "event", "old")]
    assert after == [(1, "event", "new"), (2, "event", "new")]
