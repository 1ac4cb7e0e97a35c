"""actae.Worker when Actae's own statements cannot reach the database (a backend ended by
the server, a pool with no connection to give): a run stopped that way is not the agent's
failure (resumed uncounted, its tool run once), and a stop is not held up waiting for a
connection."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import AsyncConnectionPool

from actae import ActaeClient, Run, Worker, calls
from tests.python.integration.test_worker_fixes import _sync, _until_final


@_sync
async def test_a_step_whose_connection_the_server_ended_is_resumed_not_failed(
    dsn: str, unique: Callable[..., str]
) -> None:
    """The agent's tool claim is blocked on a lock, its backend terminated (as a restart or
    a failover ends a statement in flight): with max_attempts 1 the run still completes,
    with no failure counted, and the tool ran once."""
    queue, channel = unique("q"), unique("ch")
    ran: list[int] = []

    def charge(ctx: Any) -> dict[str, int]:
        ran.append(ctx.attempt)
        return {"charged": 1}

    async with ActaeClient(dsn) as client, await psycopg.AsyncConnection.connect(
            dsn, autocommit=True) as admin:
        await client.start_run(channel, "a", {}, queue=queue, max_attempts=1)
        worker = Worker(client, queue=queue, concurrency=1, lease_seconds=2, poll_interval=0.2)

        @worker.agent("a")
        async def a(run: Run) -> Any:
            return await run.tool(charge, key="charge")

        async with await psycopg.AsyncConnection.connect(dsn) as locker:
            await locker.execute("lock table actae.executions in share mode")
            task = asyncio.create_task(worker.run_async())
            blocked = None
            for _ in range(200):
                blocked = await (await admin.execute(
                    "select pid from pg_stat_activity where wait_event_type = 'Lock'"
                    " and datname = current_database()"
                    " and query like '%claim_execution%'")).fetchone()
                if blocked is not None:
                    break
                await asyncio.sleep(0.05)
            assert blocked is not None, "the tool's claim never waited on the lock"
            await admin.execute("select pg_terminate_backend(%s)", blocked)
            await locker.rollback()
        row = await _until_final(client, channel, timeout=20)
        worker.stop()
        await task
    assert (row.status, row.failures) == ("completed", 0), row
    assert ran == [1], "the tool ran once"


@_sync
async def test_a_stop_is_not_held_by_a_claim_waiting_for_a_connection(
    dsn: str, unique: Callable[..., str]
) -> None:
    """A pool with no connection to give (as while the database is down): the worker's
    claim waits for one at most a few seconds, so a stop ends the worker then, not after
    the pool's 30 s timeout."""
    client = ActaeClient(dsn, max_size=1)
    await client.open()
    held = await client.pool.getconn()  # the pool's only connection
    try:
        worker = Worker(client, queue=unique("q"), concurrency=1, poll_interval=0.2)

        @worker.agent("a")
        async def a(run: Run) -> None:
            return None

        task = asyncio.create_task(worker.run_async())
        await asyncio.sleep(0.5)  # its claim is waiting for the pool now
        begun = time.monotonic()
        worker.stop()
        worker.stop()
        await asyncio.wait_for(task, 25)
        assert time.monotonic() - begun < 15, "stop waited for the pool's timeout"
    finally:
        await client.pool.putconn(held)
        await client.close()


def _busy_agent(small: ActaeClient) -> Callable[[Run], Any]:
    """An agent whose Actae call gets no connection in time from a pool of its own that it
    keeps busy itself (its only connection held): the agent's failure, not an outage."""

    async def busy(run: Run) -> Any:
        held = await small.pool.getconn()
        try:
            return await small.run(replace(calls.get_run(run.channel_id), wait=0.5))
        finally:
            await small.pool.putconn(held)

    return busy


@_sync
async def test_the_agents_own_connection_errors_are_its_failures(
    dsn: str, unique: Callable[..., str]
) -> None:
    """What is not the database out of reach stays the agent's failure, counted toward
    max_attempts: a closed connection of its own passed to an Actae call (conn=), and a
    pool it keeps busy itself (no connection in time while the database answers)."""
    async with ActaeClient(dsn) as client, ActaeClient(dsn, max_size=1) as small:
        mine = await psycopg.AsyncConnection.connect(dsn)
        await mine.close()
        queue, closed, busy = unique("q"), unique("closed"), unique("busy")
        await client.start_run(closed, "closed", {}, queue=queue, max_attempts=1)
        await client.start_run(busy, "busy", {}, queue=queue, max_attempts=1)
        worker = Worker(client, queue=queue, concurrency=2, lease_seconds=2, poll_interval=0.2)

        @worker.agent("closed")
        async def closed_agent(run: Run) -> Any:
            return await client.get_channel(run.channel_id, conn=mine)

        worker.agent("busy")(_busy_agent(small))

        task = asyncio.create_task(worker.run_async())
        rows = [await _until_final(client, channel, timeout=20) for channel in (closed, busy)]
        worker.stop()
        await task
    assert [(r.status, r.failures, r.attempt) for r in rows] == [("failed", 1, 1)] * 2, rows
    assert "connection is closed" in (rows[0].error or "")
    assert "PoolTimeout" in (rows[1].error or ""), rows[1].error


def _kwargs_pool(dsn: str, size: int, options: str = "") -> AsyncConnectionPool:
    """A caller's pool configured through its kwargs (no conninfo string of its own)."""
    params = conninfo_to_dict(dsn)
    if options:
        params["options"] = options
    return AsyncConnectionPool("", min_size=size, max_size=size,
                               kwargs={**params, "autocommit": True}, open=False)


@_sync
async def test_on_a_callers_pool_an_ended_idle_connection_is_resumed_and_a_busy_pool_fails(
    dsn: str, unique: Callable[..., str]
) -> None:
    """The worker's client on a caller's pool configured through kwargs: a connection the
    server ended while idle (idle_session_timeout, 57P05) is the database's doing (resumed,
    uncounted); a pool the agent keeps busy is the agent's (the worker's own connection,
    opened with the pool's kwargs, says the database answers)."""
    ended = _kwargs_pool(dsn, 2, "-c idle_session_timeout=1500")
    await ended.open(wait=True)
    ran: list[int] = []
    try:
        async with ActaeClient(pool=ended) as client, ActaeClient(dsn, max_size=1) as small:
            queue, idle, busy = unique("q"), unique("idle"), unique("busy")
            await client.start_run(idle, "idle", {}, queue=queue, max_attempts=1)
            await client.start_run(busy, "busy", {}, queue=queue, max_attempts=1)
            worker = Worker(client, queue=queue, concurrency=2, lease_seconds=2,
                            poll_interval=0.2)

            @worker.agent("idle")
            async def idle_agent(run: Run) -> Any:
                if run.attempt == 1:
                    await asyncio.sleep(2.5)  # the pool's idle connections are ended
                return await run.tool(lambda ctx: ran.append(ctx.attempt) or 1, key="k")

            worker.agent("busy")(_busy_agent(small))

            task = asyncio.create_task(worker.run_async())
            rows = [await _until_final(client, channel, timeout=25) for channel in (idle, busy)]
            worker.stop()
            await task
    finally:
        await ended.close()
    assert (rows[0].status, rows[0].failures) == ("completed", 0), rows[0]
    assert (rows[1].status, rows[1].failures, rows[1].attempt) == ("failed", 1, 1), rows[1]
    assert ran == [1]


@_sync
async def test_a_worker_on_a_database_never_migrated_says_to_migrate(
    dsn: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A worker started before `actae migrate` (or on the wrong database) keeps polling, so
    it starts work once the database is migrated; each failed claim's warning is one line
    that says what to do, as the command line's errors do (three lines of SQL before)."""
    from tests.python.support.databases import empty_database

    with empty_database(dsn, "actae_worker_unmigrated") as scratch, caplog.at_level(
            logging.WARNING, logger="actae"):
        async with ActaeClient(scratch) as client:
            worker = Worker(client, queue="q", poll_interval=0.05)

            @worker.agent("a")
            async def agent(run: Run) -> None:
                raise AssertionError("no run to claim")

            await asyncio.wait_for(worker.run_async(until_idle=True), 30)
    failed = [r.getMessage() for r in caplog.records if "claim_run failed" in r.getMessage()]
    assert failed, caplog.text
    assert failed[0].endswith(
        "(is this database migrated? run actae migrate)); retrying"), failed[0]
    assert "\n" not in failed[0]
