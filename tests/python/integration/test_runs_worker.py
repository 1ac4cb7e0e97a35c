"""actae.Worker against a real database: the issue's refund agent end to end, retries,
permanent failures, cancellation, timeouts, derived keys, prefetch, graceful shutdown and
the sync entry point."""

from __future__ import annotations

import asyncio
import functools
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
import pytest

from actae import ActaeClient, PermanentError, Run, SyncActaeClient, ToolContext, Worker
from actae.runs import RunRecord

FINAL = ("completed", "failed", "cancelled")


def _sync(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run an async test body with asyncio.run (no pytest plugin needed)."""

    @functools.wraps(fn)
    def test(*args: Any, **kwargs: Any) -> Any:
        return asyncio.run(asyncio.wait_for(fn(*args, **kwargs), 90))

    return test


async def _until(client: ActaeClient, channel_ids: list[str], statuses: tuple[str, ...],
                 timeout: float = 30.0) -> list[RunRecord]:
    deadline = time.monotonic() + timeout
    while True:
        rows = [await client.get_run(c) for c in channel_ids]
        if all(r.status in statuses for r in rows):
            return rows
        if time.monotonic() > deadline:
            raise AssertionError(f"runs not {statuses}: {[(r.channel_id, r.status) for r in rows]}")
        await asyncio.sleep(0.05)


async def _with_worker(worker: Worker, body: Callable[[], Any]) -> Any:
    task = asyncio.create_task(worker.run_async())
    try:
        return await body()
    finally:
        worker.stop()
        await asyncio.wait_for(task, 30)


def _queue(unique: Callable[..., str]) -> str:
    return unique("q")


@_sync
async def test_refund_agent_waits_sleeps_and_finishes_with_each_effect_once(
    dsn: str, unique: Callable[..., str]
) -> None:
    effects: list[str] = []

    def lookup_order(ctx: ToolContext) -> dict[str, Any]:
        effects.append("lookup")
        return {"order_id": ctx.params["order_id"], "total_cents": 25_000}

    def issue_refund(ctx: ToolContext) -> dict[str, Any]:
        effects.append("refund")
        return {"refunded": True, "key": ctx.idempotency_key}

    queue = _queue(unique)
    async with ActaeClient(dsn) as client:
        worker = Worker(client, queue=queue, concurrency=2, poll_interval=0.2)
        hits: list[int] = []

        @worker.agent("refund")
        async def refund(run: Run) -> dict[str, Any]:
            order = await run.tool(lookup_order, key="lookup",
                                   params={"order_id": run.input["order_id"]})
            if order["total_cents"] > 10_000:
                approval = await run.wait_for_event("approval", timeout=timedelta(days=2),
                                                    key="approve")
                if not approval.payload["approved"]:
                    return {"refunded": False}
            await run.sleep(timedelta(seconds=1), key="cool-off")
            hits.append(run.prefetch_hits)
            return await run.tool(issue_refund, key="refund",
                                  params={"order_id": order["order_id"]},
                                  dedup_fields=["order_id"])

        channel = unique("refund")
        started = await client.start_run(channel, "refund", {"order_id": "o-1"}, queue)
        assert started.outcome == "started"

        async def body() -> RunRecord:
            await _until(client, [channel], ("waiting",))
            assert effects == ["lookup"]
            await client.record_event(channel, "approval", {"approved": True})
            return (await _until(client, [channel], FINAL))[0]

        done = await _with_worker(worker, body)
        assert done.status == "completed"
        assert done.result["refunded"] is True
        assert effects == ["lookup", "refund"], "each tool ran exactly once"
        # Claimed at start, after the approval, after the sleep: lookup replayed from the
        # prefetch on the last attempt (no round trip).
        assert done.attempt == 3 and done.failures == 0
        assert hits == [1]
        kinds = [e.event_type for e in await client.list_events(channel)]
        assert kinds == ["actae.wait", "approval", "actae.sleep"]


@_sync
async def test_declined_approval_takes_the_other_branch(dsn: str, unique: Callable[..., str]
                                                        ) -> None:
    queue = _queue(unique)
    async with ActaeClient(dsn) as client:
        worker = Worker(client, queue=queue, poll_interval=0.2)

        @worker.agent("gate")
        async def gate(run: Run) -> dict[str, Any]:
            approval = await run.wait_for_event("approval", timeout=60)
            return {"approved": approval.payload["approved"]}

        channel = unique("gate")
        # The approval is recorded before any worker runs: it is found by the first wait?
        # No: the wait only counts events after it was first recorded, so record it later.
        await client.start_run(channel, "gate", {}, queue)

        async def body() -> RunRecord:
            await _until(client, [channel], ("waiting",))
            await client.record_event(channel, "approval", {"approved": False})
            return (await _until(client, [channel], FINAL))[0]

        done = await _with_worker(worker, body)
        assert done.result == {"approved": False}
        assert done.wake_reason == "event"


@_sync
async def test_wait_times_out_into_the_timeout_branch(dsn: str, unique: Callable[..., str]
                                                      ) -> None:
    queue = _queue(unique)
    async with ActaeClient(dsn) as client:
        worker = Worker(client, queue=queue, poll_interval=0.2)

        @worker.agent("gate")
        async def gate(run: Run) -> dict[str, Any]:
            approval = await run.wait_for_event("approval", timeout=1)
            return {"timed_out": approval.timed_out, "payload": approval.payload}

        channel = unique("timeout")
        await client.start_run(channel, "gate", {}, queue)
        done = await _with_worker(worker, lambda: _until(client, [channel], FINAL))
        assert done[0].result == {"timed_out": True, "payload": None}
        assert done[0].wake_reason == "timeout"


@_sync
async def test_retryable_failure_is_retried_after_backoff(dsn: str, unique: Callable[..., str]
                                                          ) -> None:
    queue = _queue(unique)
    calls: list[float] = []
    async with ActaeClient(dsn) as client:
        worker = Worker(client, queue=queue, poll_interval=0.1)

        @worker.agent("flaky")
        async def flaky(run: Run) -> str:
            calls.append(time.monotonic())
            if len(calls) == 1:
                raise RuntimeError("provider timed out")
            return "ok"

        channel = unique("flaky")
        await client.start_run(channel, "flaky", None, queue)
        done = (await _with_worker(worker, lambda: _until(client, [channel], FINAL)))[0]
        assert done.status == "completed" and done.result == "ok"
        assert done.failures == 1 and done.attempt == 2 and done.wake_reason == "retry"
        assert calls[1] - calls[0] >= 0.9, "the first retry waits about 1 s"


@_sync
async def test_permanent_error_fails_the_run_for_good(dsn: str, unique: Callable[..., str]
                                                      ) -> None:
    queue = _queue(unique)
    async with ActaeClient(dsn) as client:
        worker = Worker(client, queue=queue, poll_interval=0.1)

        @worker.agent("declined")
        async def declined(run: Run) -> None:
            raise PermanentError("card declined")

        channel = unique("declined")
        await client.start_run(channel, "declined", None, queue)
        done = (await _with_worker(worker, lambda: _until(client, [channel], FINAL)))[0]
        assert done.status == "failed" and done.failures == 1
        assert done.error == "PermanentError: card declined"


@_sync
async def test_permanent_failures_in_a_task_group_or_replayed_end_the_run(
    dsn: str, unique: Callable[..., str]
) -> None:
    """A PermanentError raised in an asyncio.TaskGroup (an ExceptionGroup), and a tool call's
    final failure replayed on a later attempt (ToolFailed), fail the run for good: another
    attempt would end the same way. Both were retried until max_attempts."""
    queue = _queue(unique)
    ran: list[str] = []

    def declined(ctx: ToolContext) -> None:
        ran.append(ctx.key_name)
        raise PermanentError("card declined")

    async with ActaeClient(dsn) as client:
        worker = Worker(client, queue=queue, poll_interval=0.1)

        @worker.agent("grouped")
        async def grouped(run: Run) -> None:
            async with asyncio.TaskGroup() as group:
                group.create_task(run.tool(declined, key="charge"))

        @worker.agent("replayed")
        async def replayed(run: Run) -> None:
            try:
                await run.tool(declined, key="charge")
            except PermanentError as exc:  # the first attempt: retried (a transient error)
                raise RuntimeError("the network went away") from exc

        in_group, again = unique("grouped"), unique("replayed")
        await client.start_run(in_group, "grouped", None, queue)
        await client.start_run(again, "replayed", None, queue)
        done = await _with_worker(worker, lambda: _until(client, [in_group, again], FINAL))
    assert [(r.status, r.failures) for r in done] == [("failed", 1), ("failed", 2)], done
    assert done[0].error is not None and "TaskGroup" in done[0].error, done[0].error
    assert done[1].error == "ToolFailed: PermanentError: card declined", done[1].error
    assert sorted(ran) == ["charge", "charge"], "each tool ran once (one per channel)"


@_sync
async def test_cancelling_a_running_run_stops_its_agent(dsn: str, unique: Callable[..., str]
                                                        ) -> None:
    queue = _queue(unique)
    stopped = asyncio.Event()
    async with ActaeClient(dsn) as client:
        worker = Worker(client, queue=queue, lease_seconds=3, poll_interval=0.1)

        @worker.agent("slow")
        async def slow(run: Run) -> None:
            try:
                await asyncio.sleep(60)
            finally:
                stopped.set()

        channel = unique("slow")
        await client.start_run(channel, "slow", None, queue)

        async def body() -> RunRecord:
            await _until(client, [channel], ("running",))
            answer = await client.cancel_run(channel, "operator said so")
            assert answer.outcome == "cancel_requested"
            return (await _until(client, [channel], FINAL, timeout=10))[0]

        done = await _with_worker(worker, body)
        assert stopped.is_set()
        assert done.status == "cancelled" and done.error == "cancelled: operator said so"


@_sync
async def test_derived_keys_replay_on_re_execution(dsn: str, unique: Callable[..., str]) -> None:
    queue = _queue(unique)
    effects: list[int] = []

    def step(ctx: ToolContext) -> int:
        effects.append(ctx.params["i"])
        return int(ctx.params["i"]) * 10

    async with ActaeClient(dsn) as client:
        worker = Worker(client, queue=queue, poll_interval=0.1, prefetch=False)

        @worker.agent("steps")
        async def steps(run: Run) -> list[int]:
            out = [await run.tool(step, params={"i": i}) for i in range(3)]
            await run.sleep(1)
            out.append(await run.tool(step, params={"i": 3}))
            await run.transition("done", {"n": len(out)}, {"out": out})
            return out

        channel = unique("steps")
        await client.start_run(channel, "steps", None, queue)
        done = (await _with_worker(worker, lambda: _until(client, [channel], FINAL)))[0]
        assert done.result == [0, 10, 20, 30]
        assert effects == [0, 1, 2, 3], "steps before the sleep replayed, none ran twice"
        keys = sorted(e.key_name for e in await client.list_executions(channel))
        assert keys == ["step#1", "step#2", "step#3", "step#4"]
        assert (await client.get_state(channel)).state == {"out": [0, 10, 20, 30]}


@_sync
async def test_shutdown_grace_then_lease_lapses_and_another_worker_reclaims(
    dsn: str, unique: Callable[..., str]
) -> None:
    queue = _queue(unique)
    async with ActaeClient(dsn) as client:
        first = Worker(client, queue=queue, lease_seconds=2, shutdown_grace=0.2,
                       poll_interval=0.1, name="first")
        release = asyncio.Event()

        @first.agent("long")
        async def long_first(run: Run) -> str:
            await release.wait()
            return "first"

        channel = unique("long")
        await client.start_run(channel, "long", None, queue)
        task = asyncio.create_task(first.run_async())
        await _until(client, [channel], ("running",))
        first.stop()
        await asyncio.wait_for(task, 10)
        assert first.stats["abandoned"] == 1
        row = await client.get_run(channel)
        assert row.status == "running" and row.worker == "first", "nothing was recorded"

        second = Worker(client, queue=queue, lease_seconds=2, poll_interval=0.2, name="second")

        @second.agent("long")
        async def long_second(run: Run) -> str:
            return f"second after {run.wake_reason}"

        done = (await _with_worker(second, lambda: _until(client, [channel], FINAL)))[0]
        assert done.result == "second after lease_expired" and done.worker == "second"


@_sync
async def test_shutdown_at_the_deadline_keeps_a_completion_in_flight(
    dsn: str, unique: Callable[..., str]
) -> None:
    """stop() with no grace while a completion (which also claims the next run) is on its
    way: the completion is kept and counted, and the run it claimed is not started."""
    queue = _queue(unique)
    async with ActaeClient(dsn) as client:
        worker = Worker(client, queue=queue, concurrency=1, poll_interval=0.1,
                        shutdown_grace=0, name="stopping")
        ran: list[str] = []

        @worker.agent("quick")
        async def quick(run: Run) -> str:
            ran.append(run.channel_id)
            return "done"

        send = client.complete_run_and_claim

        async def stop_then_send(*args: Any, **kwargs: Any) -> Any:
            worker.stop()  # SIGTERM arrives while the completing statement is in flight
            return await send(*args, **kwargs)

        client.complete_run_and_claim = stop_then_send  # type: ignore[method-assign]
        first, second = unique("first"), unique("second")
        await client.start_run(first, "quick", None, queue)
        await client.start_run(second, "quick", None, queue)
        await worker.run_async()

        assert ran == [first]
        assert (await client.get_run(first)).status == "completed"
        held = await client.get_run(second)
        assert held.status == "running" and held.worker == "stopping", "claimed, not started"
        assert worker.stats["completed"] == 1 and worker.stats["abandoned"] == 1


def test_sync_entry_point_runs_until_stopped(dsn: str, unique: Callable[..., str]) -> None:
    queue = _queue(unique)
    worker = Worker(dsn, queue=queue, poll_interval=0.1)

    @worker.agent("echo")
    async def echo(run: Run) -> Any:
        return run.input

    channel = unique("echo")
    with SyncActaeClient(dsn) as client:
        client.start_run(channel, "echo", {"x": 1}, queue)
        thread = threading.Thread(target=worker.run, kwargs={"install_signal_handlers": False})
        thread.start()
        try:
            deadline = time.monotonic() + 20
            while client.get_run(channel).status != "completed":
                assert time.monotonic() < deadline
                time.sleep(0.05)
        finally:
            worker.stop()
            thread.join(20)
        assert not thread.is_alive()
        assert client.get_run(channel).result == {"x": 1}


def test_agent_must_be_async(dsn: str) -> None:
    worker = Worker(dsn)
    with pytest.raises(TypeError):
        worker.agent("sync")(lambda run: None)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["", "a" * 257, "é" * 129])
def test_an_agent_name_start_run_would_refuse_is_refused_at_registration(
    dsn: str, name: str
) -> None:
    """claim_run refuses a list holding a name outside 1..256 bytes, so such a name would
    stop the worker claiming any run: it is refused when the agent is registered."""

    async def agent(run: Run) -> None:
        return None

    worker = Worker(dsn)
    with pytest.raises(ValueError, match="agent name must be 1 to 256 bytes"):
        worker.agent(name)(agent)
    assert worker.agents == {}
    worker.agent("é" * 128)(agent)
    assert list(worker.agents) == ["é" * 128]


def test_an_object_with_an_async_call_is_an_agent(dsn: str) -> None:
    class Agent:
        async def __call__(self, run: Run) -> None:
            return None

    class SyncAgent:
        def __call__(self, run: Run) -> None:
            return None

    worker = Worker(dsn)
    agent = Agent()
    assert worker.agent("obj")(agent) is agent
    assert worker.agents["obj"] is agent
    with pytest.raises(TypeError):
        worker.agent("sync-obj")(SyncAgent())  # type: ignore[arg-type]


@_sync
@pytest.mark.parametrize("result", ["x" * (2 << 20), object()], ids=["over 1 MiB", "not JSON"])
async def test_a_result_that_cannot_be_recorded_fails_the_run_for_good(
    dsn: str, unique: Callable[..., str], result: Any
) -> None:
    # Left unrecorded, the run's lease would lapse and it would run again and again.
    queue = _queue(unique)
    runs: list[int] = []
    async with ActaeClient(dsn) as client:
        worker = Worker(client, queue=queue, lease_seconds=1, poll_interval=0.1)

        @worker.agent("odd")
        async def odd(run: Run) -> Any:
            runs.append(run.attempt)
            return result

        channel = unique("odd")
        await client.start_run(channel, "odd", None, queue)
        done = (await _with_worker(worker, lambda: _until(client, [channel], FINAL)))[0]
        assert done.status == "failed" and done.failures == 1
        assert done.error is not None and "could not be recorded" in done.error
        assert runs == [1]


@_sync
async def test_a_run_ended_by_another_claimer_stops_its_stalled_agent(
    dsn: str, unique: Callable[..., str]
) -> None:
    # The agent stalls its worker's loop past the lease while a cancellation is pending;
    # another worker's claim ends the run as cancelled. When the loop runs again, the
    # stalled worker's heartbeat is refused (the run is over, AC409): its agent must stop
    # there, not go on with its work on a cancelled run.
    queue = _queue(unique)
    channel = unique("stalled")
    steps: list[int] = []

    def other_worker() -> None:
        with SyncActaeClient(dsn, max_size=1) as other:
            deadline = time.monotonic() + 20
            while other.get_run(channel).status != "running":
                assert time.monotonic() < deadline
                time.sleep(0.05)
            run = other.get_run(channel)
            assert run.lease_expires_at is not None
            while other.get_run(channel).lease_expires_at == run.lease_expires_at and (
                    datetime.now(UTC) < run.lease_expires_at + timedelta(milliseconds=200)):
                time.sleep(0.05)
            other.cancel_run(channel, "stop")
            assert other.claim_run(queue, "other") is None  # ended as cancelled, not handed out

    async with ActaeClient(dsn) as client:
        worker = Worker(client, queue=queue, lease_seconds=2, poll_interval=0.1)

        @worker.agent("stalls")
        async def stalls(run: Run) -> None:
            time.sleep(3.5)  # blocks the worker's loop: no heartbeat
            for i in range(30):
                await asyncio.sleep(0.1)
                steps.append(i)

        await client.start_run(channel, "stalls", None, queue)
        thread = threading.Thread(target=other_worker)
        thread.start()

        async def body() -> RunRecord:
            done = (await _until(client, [channel], FINAL))[0]
            await asyncio.sleep(1.0)
            return done

        done = await _with_worker(worker, body)
        thread.join(10)
        assert done.status == "cancelled"
        # Stopped at its first heartbeat after the stall (a third of the lease, about 7
        # steps), not after all 30.
        assert len(steps) < 15, steps


# Completes a claimed batch with 20 results {"page": 1 040 000 times "a"}, built by the server.
_COMPLETE_PAGES = """
select count(*) from actae.complete_executions(
    %s, %s, array_fill(jsonb_build_object('page', repeat('a', 1040000)), array[20]), %s)
"""


# 260 MB through the server, the same on any version: make test runs it in its PostgreSQL 18
# pass only (marker `second`; see the Makefile).
@pytest.mark.second
@_sync
async def test_a_prefix_too_large_to_prefetch_does_not_stop_the_queue(
    dsn: str, unique: Callable[..., str]
) -> None:
    """A run whose channel holds more completed results than one jsonb value can carry
    (256 MB, here 260 results of 1 MB, each within the limits) made the worker's claim with
    prefetch fail, undoing every claim of the statement, at every poll: neither that run nor
    one queued behind it ever ran. The worker then claims without the prefetch; the big run
    still replays its completed calls (read in list_completed pages), the small one runs."""
    queue = _queue(unique)
    big, small = unique("big"), unique("small")
    blob = "a" * 1_040_000  # compresses on disk, about 1 MB as jsonb
    calls: list[str] = []
    async with ActaeClient(dsn) as client:
        await client.start_run(big, "agent", None, queue)
        # The 260 results are made by the server (the same batch calls, with the page built
        # there): sending 260 MB from this process took most of the test's time.
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            for base in range(0, 260, 20):
                keys = [f"k{base + i:04d}" for i in range(20)]
                claimed = await client.claim_executions(big, keys, ["fetch"] * 20, [{}] * 20)
                await conn.execute(_COMPLETE_PAGES, (
                    [c.execution.id for c in claimed], [c.claim_token for c in claimed], big))
        await client.start_run(small, "agent", None, queue)
        worker = Worker(client, queue=queue, concurrency=2, poll_interval=0.1)

        @worker.agent("agent")
        async def agent(run: Run) -> Any:
            if run.channel_id == big:  # a completed call replays, the tool is not called
                page = await run.tool(lambda ctx: calls.append(ctx.key_name), key="k0259",
                                      tool_name="fetch", params={})
                assert page == {"page": blob}
            return "done"

        done = await _with_worker(worker, lambda: _until(client, [big, small], FINAL, 60))
        assert [r.status for r in done] == ["completed", "completed"]
        assert calls == []


@_sync
async def test_a_run_ended_while_its_worker_stalled_is_counted_lost_without_warnings(
    dsn: str, unique: Callable[..., str], caplog: pytest.LogCaptureFixture
) -> None:
    """The agent blocks its event loop past the lease; meanwhile an operator cancels the run
    and another claimer's claim ends it as cancelled. The agent then returns: the worker
    counts the run as lost and logs no warning (it logged two, a failed completion and a
    failed recording, for a run that was simply over)."""
    queue = _queue(unique)
    channel = unique("stalled")

    def end_it() -> None:
        time.sleep(1.5)  # the 1 s lease has lapsed
        with SyncActaeClient(dsn, max_size=1) as other:
            other.cancel_run(channel, "operator")
            assert other.claim_run(queue, "other") is None  # ends it as cancelled

    async with ActaeClient(dsn) as client:
        worker = Worker(client, queue=queue, lease_seconds=1, poll_interval=0.1)

        @worker.agent("stall")
        async def stall(run: Run) -> dict[str, int]:
            ender = threading.Thread(target=end_it)
            ender.start()
            time.sleep(3)  # blocks the loop: no heartbeat goes out
            ender.join()
            return {"done": 1}

        await client.start_run(channel, "stall", None, queue)
        with caplog.at_level("INFO", logger="actae.worker"):
            done = (await _with_worker(worker, lambda: _until(client, [channel], FINAL)))[0]
            await asyncio.sleep(0.5)
    assert done.status == "cancelled" and done.error == "cancelled: operator", done
    assert worker.stats["lease_lost"] >= 1 and worker.stats["completed"] == 0, worker.stats
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert warnings == [], warnings
