"""The driver's short paths behave like the long ones: the logging observer run without a
generator logs what the generator form logs, and an async tool's run_tool waits, heartbeats,
returns and is cancelled with its caller as before (real database, real event loop)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest

from actae import (
    ActaeClient,
    IdempotencyConflict,
    LeaseLost,
    SyncActaeClient,
    ToolContext,
    observe,
)
from actae.calls import Call


class GeneratorObserver(observe.Observer):
    """The default observer, forced through its generator form (steps overridden)."""

    def steps(self, call: Call[Any]) -> observe.Steps:
        return (yield from super().steps(call))


@pytest.fixture
def restore_observer() -> Iterator[None]:
    saved = observe.observer
    try:
        yield
    finally:
        observe.observer = saved


def logged_story(dsn: str, channel: str, caplog: pytest.LogCaptureFixture,
                 conn: psycopg.Connection[Any]) -> list[tuple[int, str]]:
    """Lost lease, cancellation requested, cancelled, ambiguous takeover: what was logged."""
    caplog.clear()
    with SyncActaeClient(dsn, max_size=1) as client, caplog.at_level(logging.INFO, "actae"):
        claim = client.claim_execution(channel, "k", "t", {"a": 1})
        with pytest.raises(LeaseLost):
            client.heartbeat_execution(claim.execution.id, claim.execution.id)  # wrong token
        client.cancel_execution(claim.execution.id, "changed my mind")
        assert client.heartbeat_execution(claim.execution.id, claim.claim_token).cancel_requested
        client.fail_execution(claim.execution.id, "cancelled: changed my mind",
                              claim.claim_token, retryable=False)
        dead = client.claim_execution(channel, "k2", "t", {}, lease_seconds=30)
        conn.execute("update actae.executions set lease_expires_at = clock_timestamp()"
                     " - interval '1 second' where execution_id = %s", (dead.execution.id,))
        again = client.claim_execution(channel, "k2", "t", {}, lease_seconds=30)
        assert again.status == "reclaimed" and again.ambiguous
    return [(r.levelno, r.getMessage().split(" ")[0]) for r in caplog.records
            if r.name == "actae"]


def test_the_plain_observer_logs_what_its_generator_form_logs(
    dsn: str, unique: Callable[..., str], caplog: pytest.LogCaptureFixture,
    conn: psycopg.Connection[Any], restore_observer: None,
) -> None:
    observe.observer = observe.Observer()
    plain = logged_story(dsn, unique("plain-observer"), caplog, conn)
    observe.observer = GeneratorObserver()
    generator = logged_story(dsn, unique("generator-observer"), caplog, conn)
    assert plain == generator
    assert [m for _, m in plain] == ["lost", "cancellation", "cancellation", "cancelled",
                                 "ambiguous"]
    assert [level for level, _ in plain] == [logging.WARNING, logging.INFO, logging.INFO,
                                             logging.INFO, logging.WARNING]


def test_async_tool_that_outlives_a_wait_is_heartbeaten_and_returns(
    dsn: str, unique: Callable[..., str]
) -> None:
    channel = unique("async-heartbeat")

    async def slow(ctx: ToolContext) -> dict[str, Any]:
        await asyncio.sleep(1.3)  # lease 3 s: run_tool wakes every second to heartbeat
        return {"slept": ctx.key_name}

    async def main() -> tuple[Any, Any, float]:
        async with ActaeClient(dsn, max_size=1) as client:
            started = time.monotonic()
            out = await client.run_tool(slow, channel_id=channel, key_name="k", tool_name="t",
                                        params={}, lease_seconds=3)
            took = time.monotonic() - started
            row = await client.get_execution(channel_id=channel, key_name="k")
            return out, row, took

    out, row, took = asyncio.run(main())
    assert out == {"slept": "k"}
    assert row.status == "completed" and row.heartbeat_at is not None
    assert took < 2.5  # woken when the tool ended, not at the next heartbeat


def test_async_tools_return_at_once_and_sync_tools_in_threads_too(
    dsn: str, unique: Callable[..., str]
) -> None:
    channel = unique("quick-tools")

    async def quick(ctx: ToolContext) -> str:
        return ctx.key_name

    def blocking(ctx: ToolContext) -> str:
        return ctx.key_name.upper()

    async def main() -> list[Any]:
        async with ActaeClient(dsn, max_size=1) as client:
            return [await client.run_tool(tool, channel_id=channel, key_name=f"k{i}",
                                          tool_name="t", params={}, lease_seconds=300)
                    for i, tool in enumerate([quick, blocking, quick, blocking])]

    started = time.monotonic()
    assert asyncio.run(main()) == ["k0", "K1", "k2", "K3"]
    assert time.monotonic() - started < 5  # a wait of lease/3 = 100 s would show


def test_cancelling_the_caller_cancels_its_async_tool_and_records_nothing(
    dsn: str, unique: Callable[..., str]
) -> None:
    channel = unique("caller-cancelled")
    seen: list[str] = []

    async def forever(ctx: ToolContext) -> None:
        seen.append("started")
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise

    async def main() -> Any:
        async with ActaeClient(dsn, max_size=1) as client:
            caller = asyncio.ensure_future(client.run_tool(
                forever, channel_id=channel, key_name="k", tool_name="t", params={}))
            while not seen:
                await asyncio.sleep(0.01)
            caller.cancel()
            with pytest.raises(asyncio.CancelledError):
                await caller
            deadline = time.monotonic() + 10
            while True:  # until the lease is given back (a heartbeat, once the tool ended)
                row = await client.get_execution(channel_id=channel, key_name="k")
                if row.status != "claimed" or time.monotonic() > deadline:
                    return row
                await asyncio.sleep(0.02)

    row = asyncio.run(main())
    assert seen == ["started", "cancelled"]
    # Nothing recorded, and the lease given back: the next claim takes over, ambiguous.
    assert (row.status, row.result, row.error) == ("in_progress", None, None)
    assert row.lease_expires_at is not None and row.heartbeat_at is not None
    assert (row.lease_expires_at - row.heartbeat_at).total_seconds() == 1


def test_a_pooled_connections_reused_cursor_reads_each_calls_own_rows(
    dsn: str, unique: Callable[..., str], conn: psycopg.Connection[Any]
) -> None:
    """One pooled connection, one reused cursor: statements with other columns, an error in
    between, and a caller's own connection (conn=) each read their own rows."""
    channel = unique("reused-cursor")
    with SyncActaeClient(dsn, max_size=1) as client:
        claim = client.claim_execution(channel, "k", "t", {"a": 1})
        with pytest.raises(IdempotencyConflict):
            client.claim_execution(channel, "k", "t", {"a": 2})
        recorded = client.record_event(channel, "note", {"n": 1})
        done = client.complete_execution(claim.execution.id, claim.claim_token, {"ok": 1})
        mine = client.get_execution(channel_id=channel, key_name="k", conn=conn)
        events = client.list_events(channel)
        replay = client.claim_execution(channel, "k", "t", {"a": 1})
        pooled = client.pool.getconn()
        try:
            cursor = getattr(pooled, "_actae_cursor", None)
        finally:
            client.pool.putconn(pooled)
    assert recorded.outcome == "recorded" and recorded.cursor == 1
    assert done.status == "completed" and done.result == {"ok": 1}
    assert (mine.id, mine.status, mine.result) == (done.id, "completed", {"ok": 1})
    assert [e.event_type for e in events] == ["note"]
    assert replay.status == "replayed" and replay.result == {"ok": 1}
    assert cursor is not None and not cursor.closed
    assert getattr(conn, "_actae_cursor", None) is None  # conn=: a cursor of its own


def test_async_pooled_connection_reuses_its_cursor_across_statements(
    dsn: str, unique: Callable[..., str]
) -> None:
    channel = unique("reused-acursor")

    async def main() -> tuple[Any, Any, Any]:
        async with ActaeClient(dsn, max_size=1) as client:
            claim = await client.claim_execution(channel, "k", "t", {"a": 1})
            with pytest.raises(IdempotencyConflict):
                await client.claim_execution(channel, "k", "t", {"a": 2})
            done = await client.complete_execution(claim.execution.id, claim.claim_token, 7)
            state = await client.get_channel(channel)
            replay = await client.claim_execution(channel, "k", "t", {"a": 1})
            return done, state, replay

    done, state, replay = asyncio.run(main())
    assert done.status == "completed" and done.result == 7
    assert state.channel_id == channel
    assert replay.status == "replayed" and replay.result == 7
