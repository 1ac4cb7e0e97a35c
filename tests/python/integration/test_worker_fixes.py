"""actae.Worker against a real database: an agent error PostgreSQL cannot store as given
(NUL, lone surrogate) and a CancelledError raised by the agent's own code are recorded as
failures (so max_attempts ends the run); a stopped Worker runs again; a cancel request ends
the run at an elapsed sleep or an answered wait."""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from collections.abc import Callable
from typing import Any
from uuid import UUID

import pytest

from actae import ActaeClient, InvalidInput, Run, Worker
from actae.runs import RunRecord

FINAL = ("completed", "failed", "cancelled")


def _sync(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run an async test body with asyncio.run (no pytest plugin needed)."""

    @functools.wraps(fn)
    def test(*args: Any, **kwargs: Any) -> Any:
        return asyncio.run(asyncio.wait_for(fn(*args, **kwargs), 30))

    return test


async def _until_final(client: ActaeClient, channel: str, timeout: float = 10.0) -> RunRecord:
    deadline = time.monotonic() + timeout
    while True:
        row = await client.get_run(channel)
        if row.status in FINAL:
            return row
        if time.monotonic() > deadline:
            raise AssertionError(f"run {channel} not over: {row.status}, {row.failures} failures")
        await asyncio.sleep(0.05)


async def _failing_run(dsn: str, unique: Callable[..., str], agent: Callable[[Run], Any]
                       ) -> tuple[RunRecord, list[int]]:
    """Start a run (max_attempts 2, lease 1 s) whose agent is ``agent``; work it until it is
    over. Returns the final run and the attempts the agent saw."""
    queue, channel = unique("q"), unique("ch")
    attempts: list[int] = []
    async with ActaeClient(dsn) as client:
        await client.start_run(channel, "a", {}, queue=queue, max_attempts=2)
        worker = Worker(client, queue=queue, concurrency=1, lease_seconds=1, poll_interval=0.1)

        @worker.agent("a")
        async def a(run: Run) -> Any:
            attempts.append(run.attempt)
            return await agent(run)

        task = asyncio.create_task(worker.run_async())
        try:
            row = await _until_final(client, channel)
        finally:
            worker.stop()
            await asyncio.wait_for(task, 10)
    return row, attempts


@pytest.mark.parametrize(("message", "stored"), [
    ("bad record: b'\x00\x01'", "ValueError: bad record: b'\\x00\x01'"),
    ("bad text: \udc80!", "ValueError: bad text: \\udc80!"),
], ids=["nul", "lone-surrogate"])
@_sync
async def test_an_error_with_nul_or_a_lone_surrogate_is_recorded_and_counted(
    dsn: str, unique: Callable[..., str], message: str, stored: str
) -> None:
    async def bad(run: Run) -> None:
        raise ValueError(message)

    row, attempts = await _failing_run(dsn, unique, bad)
    assert row.status == "failed" and row.failures == 2, "both attempts were recorded"
    assert attempts == [1, 2], "the run was not re-run past max_attempts"
    assert row.error == stored


@_sync
async def test_a_cancelled_error_from_the_agent_code_is_a_failure(
    dsn: str, unique: Callable[..., str]
) -> None:
    async def cancelled_helper(run: Run) -> None:
        helper = asyncio.create_task(asyncio.sleep(10))
        asyncio.get_running_loop().call_later(0.01, helper.cancel)  # e.g. a library's
        await helper  # raises CancelledError in the agent; nobody cancelled the agent

    row, attempts = await _failing_run(dsn, unique, cancelled_helper)
    assert row.status == "failed" and row.failures == 2
    assert attempts == [1, 2]
    assert row.error == "CancelledError"


@_sync
async def test_a_stopped_worker_runs_again(dsn: str, unique: Callable[..., str]) -> None:
    queue = unique("q")
    async with ActaeClient(dsn) as client:
        worker = Worker(client, queue=queue, concurrency=1, poll_interval=0.1)

        @worker.agent("echo")
        async def echo(run: Run) -> Any:
            return run.input

        first = asyncio.create_task(worker.run_async())
        await asyncio.sleep(0.2)
        worker.stop()
        await asyncio.wait_for(first, 10)

        channel = unique("ch")
        await client.start_run(channel, "echo", {"x": 1}, queue=queue)
        second = asyncio.create_task(worker.run_async())
        try:
            row = await _until_final(client, channel, timeout=5)
        finally:
            worker.stop()
            await asyncio.wait_for(second, 10)
        assert row.status == "completed" and row.result == {"x": 1}
        assert worker.stats["completed"] == 1


@_sync
async def test_a_worker_does_not_run_twice_at_once(dsn: str, unique: Callable[..., str]) -> None:
    async with ActaeClient(dsn) as client:
        worker = Worker(client, queue=unique("q"), concurrency=1, poll_interval=0.1)

        @worker.agent("echo")
        async def echo(run: Run) -> Any:
            return run.input

        first = asyncio.create_task(worker.run_async())
        await asyncio.sleep(0.2)
        try:
            with pytest.raises(RuntimeError, match="already running"):
                await asyncio.wait_for(worker.run_async(), 2)
            assert not first.done(), "the running one goes on"
        finally:
            worker.stop()
            await asyncio.wait_for(first, 10)


class _RefusingClient(ActaeClient):
    """A client that refuses (InvalidInput) any fail_run error but the worker's fixed
    fallback: a stand-in for a server that will not store the error text. The database
    behind it is the real one."""

    async def fail_run(  # type: ignore[override]
        self, channel_id: str, claim_token: UUID, error: str, retryable: bool = True,
        **kwargs: Any,
    ) -> RunRecord:
        if "could not be recorded" not in error:
            raise InvalidInput("the error text is refused")
        return await super().fail_run(channel_id, claim_token, error, retryable, **kwargs)


@_sync
async def test_an_error_the_server_refuses_fails_the_run_with_a_fixed_message(
    dsn: str, unique: Callable[..., str]
) -> None:
    queue, channel = unique("q"), unique("ch")
    async with _RefusingClient(dsn) as client:
        await client.start_run(channel, "bad", {}, queue=queue, max_attempts=2)
        worker = Worker(client, queue=queue, concurrency=1, lease_seconds=1, poll_interval=0.1)

        @worker.agent("bad")
        async def bad(run: Run) -> None:
            raise ValueError("refused")

        task = asyncio.create_task(worker.run_async())
        try:
            row = await _until_final(client, channel)
        finally:
            worker.stop()
            await asyncio.wait_for(task, 10)
    assert row.status == "failed" and row.failures == 2
    assert row.error == "ValueError (its message could not be recorded)"


@_sync
async def test_a_cancel_request_ends_the_run_at_an_elapsed_sleep_or_an_answered_wait(
    dsn: str, unique: Callable[..., str]
) -> None:
    queue = unique("q")
    async with ActaeClient(dsn) as client:
        worker = Worker(client, queue=queue, concurrency=2, poll_interval=0.1)
        requested = asyncio.Event()
        steps: list[str] = []

        @worker.agent("sleeps")
        async def sleeps(run: Run) -> str:
            await requested.wait()
            await run.sleep(0, key="s")  # elapsed at once: the cancel request ends the run
            steps.append("after sleep")
            return "finished"

        @worker.agent("waits")
        async def waits(run: Run) -> str:
            await requested.wait()
            await run.wait_for_event("x", timeout=0, key="w")  # timed out at once: likewise
            steps.append("after wait")
            return "finished"

        channels = [unique("sleeps"), unique("waits")]
        for channel, agent in zip(channels, ["sleeps", "waits"], strict=True):
            await client.start_run(channel, agent, {}, queue=queue)
        task = asyncio.create_task(worker.run_async())
        try:
            for channel in channels:
                while (await client.get_run(channel)).status != "running":
                    await asyncio.sleep(0.05)
                assert (await client.cancel_run(channel, "stop it")).outcome == "cancel_requested"
            requested.set()
            rows = [await _until_final(client, channel) for channel in channels]
        finally:
            worker.stop()
            await asyncio.wait_for(task, 10)
        assert steps == [], "the agents did not go on"
        assert [(r.status, r.error) for r in rows] == [("cancelled", "cancelled: stop it")] * 2


@_sync
async def test_a_step_that_parks_inside_a_task_group_parks_the_run(
        dsn: str, unique: Callable[..., str], caplog: pytest.LogCaptureFixture) -> None:
    """An agent waiting on two things at once with asyncio.TaskGroup: the step that parks
    the run unwinds the group (its siblings are cancelled) and the group raises a
    BaseExceptionGroup holding the park. The run is parked, counted as parked, and nothing
    is logged as an error (the group escaped the worker before)."""
    queue, channel = unique("q"), unique("ch")
    async with ActaeClient(dsn) as client:
        await client.start_run(channel, "tg", {}, queue=queue)
        worker = Worker(client, queue=queue, concurrency=1, poll_interval=0.1)

        @worker.agent("tg")
        async def tg(run: Run) -> str:
            async with asyncio.TaskGroup() as group:
                group.create_task(run.sleep(3600, key="nap"))
                group.create_task(asyncio.sleep(3600))
            return "unreachable"

        task = asyncio.create_task(worker.run_async())
        try:
            deadline = time.monotonic() + 10
            while (await client.get_run(channel)).status != "sleeping":
                assert time.monotonic() < deadline, "the run never parked"
                await asyncio.sleep(0.05)
            while worker.stats["parked"] == 0:
                assert time.monotonic() < deadline, worker.stats
                await asyncio.sleep(0.05)
        finally:
            worker.stop()
            await asyncio.wait_for(task, 10)
    assert worker.stats["parked"] == 1 and worker.stats["failed"] == 0
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


@pytest.mark.parametrize("together", ["task_group", "gather"])
@_sync
async def test_two_sleeps_or_waits_at_once_fail_the_run_and_send_neither(
        dsn: str, unique: Callable[..., str], together: str) -> None:
    """A run parks for one thing at a time: a sleep and a wait begun together (the usual
    "remind me unless approved" written with a TaskGroup or gather) would park the run on
    the first and leave the other unrecorded, so an approval sent meanwhile was never its
    answer. The run fails for good (ConcurrentWait, one attempt of its two), and neither
    step reached the channel."""

    async def both(run: Run) -> None:
        steps = (run.sleep(2, key="reminder"),
                 run.wait_for_event("approval", timeout=60, key="ap"))
        if together == "gather":
            await asyncio.gather(*steps)
            return
        async with asyncio.TaskGroup() as group:
            for step in steps:
                group.create_task(step)

    row, attempts = await _failing_run(dsn, unique, both)
    assert (row.status, attempts) == ("failed", [1])
    assert row.error is not None and "ConcurrentWait" in row.error, row.error
    assert "one thing at a time" in row.error
    async with ActaeClient(dsn) as client:
        events = await client.list_events(row.channel_id)
    assert [e.event_type for e in events if e.event_type.startswith("actae.")] == []


@_sync
async def test_a_wait_begun_while_a_sleep_is_on_its_way_fails_the_run_not_its_event(
        dsn: str, unique: Callable[..., str], caplog: pytest.LogCaptureFixture) -> None:
    """With gather, a wait that begins a loop round later, the sleep's call already sent:
    the sleep parks the run and the wait unwinds with it (it was raising at once, the run
    failing while parked, a warning logged); resumed, the two meet again and the run fails
    for good (ConcurrentWait) instead of going on with the wait recorded late."""

    async def later() -> None:
        await asyncio.sleep(0)
        await run_of[0].wait_for_event("approval", timeout=60, key="ap")

    run_of: list[Run] = []

    async def both(run: Run) -> None:
        run_of[:] = [run]
        await asyncio.gather(run.sleep(1, key="reminder"), later())

    row, attempts = await _failing_run(dsn, unique, both)
    assert row.status == "failed" and row.error is not None, row
    assert "ConcurrentWait" in row.error and "one thing at a time" in row.error, row.error
    assert len(attempts) == 2  # parked once, then failed
    assert not [r for r in caplog.records if "lost lease" in r.getMessage()], caplog.text
    async with ActaeClient(dsn) as client:
        events = await client.list_events(row.channel_id)
    assert [e.event_type for e in events if e.event_type.startswith("actae.")] == [
        "actae.sleep"]


@_sync
async def test_steps_on_the_longest_event_type_get_keys_the_server_accepts(
        dsn: str, unique: Callable[..., str]) -> None:
    """A derived wait key or operation id holds the event type; for one of 256 bytes (the
    most the server accepts) it would pass its own 256-byte limit (AC400, the run failed):
    such a key names the type's SHA-256 instead, the same on every re-execution."""
    long_type = "e" * 256
    queue, channel = unique("q"), unique("ch")
    async with ActaeClient(dsn) as client:
        await client.start_run(channel, "long", {}, queue=queue)
        worker = Worker(client, queue=queue, concurrency=1, poll_interval=0.1)

        @worker.agent("long")
        async def long(run: Run) -> list[Any]:
            cursor = await run.record_event(long_type, {"n": 1})
            version = await run.transition(long_type, {"n": 2}, {"state": 1})
            waited = await run.wait_for_event("never", timeout=0)
            again = await run.wait_for_event(long_type, timeout=0)
            return [cursor, version, waited.timed_out, again.outcome]

        task = asyncio.create_task(worker.run_async())
        try:
            row = await _until_final(client, channel)
        finally:
            worker.stop()
            await asyncio.wait_for(task, 10)
        events = [e async for e in client.iter_events(channel)]
    assert row.status == "completed", row.error
    assert row.result == [1, 1, True, "timed_out"]
    ops = [e.operation_id for e in events if e.operation_id and e.operation_id.startswith("run:")]
    assert ops and all(len(op.encode()) <= 256 for op in ops)
