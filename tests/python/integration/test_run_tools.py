"""run_tools, the batch form of run_tool (a model's parallel tool calls), through both
clients against the real server.

Each test runs once with SyncActaeClient and sync tools, once with ActaeClient and async
tools. Round trips are counted by an observer that sees every call the client sends (each
call is one autocommit statement, so one transaction); the server's side is checked too:
the rows one complete_executions finished share one writing transaction (xmin).
"""

from __future__ import annotations

import asyncio
import logging
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest

from actae import (
    ActaeClient,
    Cancelled,
    Execution,
    PermanentError,
    SyncActaeClient,
    ToolContext,
    ToolFailed,
    ToolInProgress,
    calls,
    observe,
)
from actae.calls import Call
from actae.errors import LeaseLost
from actae.observe import Observer, Steps, call_name
from actae.plans import tools as tool_plans
from actae.plans.tools import ToolCall
from tests.python.support.helpers import endless_tool, move_clock_past, run

Body = Callable[[ToolContext], Any]


@pytest.fixture(params=["sync", "async"])
def flavor(request: pytest.FixtureRequest) -> str:
    return str(request.param)


class Counting(Observer):
    """Records the name of every call the clients send (and still logs as Observer does)."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def steps(self, call: Call[Any]) -> Steps:
        self.names.append(call_name(call))
        return (yield from super().steps(call))


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The names of the calls sent while the test runs run_tools (see ``batch``)."""
    counting = Counting()
    monkeypatch.setattr(observe, "observer", counting)
    yield counting.names


def make_tool(flavor: str, body: Body, gate: Any = None) -> Callable[[ToolContext], Any]:
    """A sync or an async tool returning body(ctx); with a gate (threading.Barrier for
    sync, asyncio.Barrier for async) it first waits for every other gated tool, which only
    returns when the tools run at the same time."""
    if flavor == "sync":

        def sync_tool(ctx: ToolContext) -> Any:
            if gate is not None:
                gate.wait()
            return body(ctx)

        return sync_tool

    async def async_tool(ctx: ToolContext) -> Any:
        if gate is not None:
            await asyncio.wait_for(gate.wait(), 10)
        await asyncio.sleep(0)
        return body(ctx)

    return async_tool


def barrier(flavor: str, parties: int) -> Any:
    return threading.Barrier(parties, timeout=10) if flavor == "sync" else asyncio.Barrier(parties)


def batch(dsn: str, flavor: str, tool_calls: list[Any], **kw: Any) -> Any:
    """client.run_tools(tool_calls, **kw) on a fresh client of the given flavor."""
    if flavor == "sync":
        with SyncActaeClient(dsn, max_size=3) as client:
            return client.run_tools(tool_calls, **kw)

    async def main() -> Any:
        async with ActaeClient(dsn, max_size=3) as client:
            return await client.run_tools(tool_calls, **kw)

    return run(main())


class Recorder:
    """Remembers every context a tool was called with (from any thread)."""

    def __init__(self) -> None:
        self.contexts: list[ToolContext] = []
        self.lock = threading.Lock()

    def __call__(self, ctx: ToolContext) -> Any:
        with self.lock:
            self.contexts.append(ctx)
        return {"ran": ctx.key_name, "q": ctx.params.get("q")}

    def keys(self) -> list[str]:
        return sorted(c.key_name for c in self.contexts)


def rows(dsn: str, channel: str) -> dict[str, Execution]:
    with SyncActaeClient(dsn, max_size=1) as client:
        found = client.list_executions(channel_id=channel)
    return {e.key_name: e for e in found}


def writers(conn: psycopg.Connection, channel: str) -> dict[str, str]:
    """The transaction that last wrote each execution row of the channel (xmin)."""
    found = conn.execute("select key_name, xmin::text from actae.executions"
                         " where channel_id = %s", (channel,)).fetchall()
    return {key: xmin for key, xmin in found}


def searches(flavor: str, body: Body, n: int, gate: Any = None) -> list[ToolCall]:
    return [ToolCall(make_tool(flavor, body, gate), f"search:{i}", "search", {"q": f"q{i}"})
            for i in range(n)]


# --- the common case: every call new -------------------------------------------------------


def test_all_new_runs_every_tool_once_concurrently_in_two_round_trips(
    dsn: str, conn: psycopg.Connection, unique: Any, flavor: str, sent: list[str]
) -> None:
    channel, body, n = unique("batch"), Recorder(), 5
    results = batch(dsn, flavor, searches(flavor, body, n, barrier(flavor, n)),
                    channel_id=channel)
    assert results == [{"ran": f"search:{i}", "q": f"q{i}"} for i in range(n)]
    # the barrier only opens with all five tools running at once
    assert body.keys() == [f"search:{i}" for i in range(n)]
    assert sent == ["claim_executions", "complete_executions"]
    stored = rows(dsn, channel)
    assert {k: (e.status, e.result) for k, e in stored.items()} == {
        f"search:{i}": ("completed", results[i]) for i in range(n)}
    # the server's side: one transaction completed all five
    assert len(set(writers(conn, channel).values())) == 1
    assert {c.execution_id for c in body.contexts} == {e.id for e in stored.values()}


def test_tools_of_the_other_kind_run_concurrently_too(
    dsn: str, unique: Any, flavor: str, sent: list[str]
) -> None:
    """Sync tools under ActaeClient (worker threads) and async tools under SyncActaeClient
    (each in a worker thread's own event loop) also all run at once."""
    channel, body, gate = unique("batch"), Recorder(), threading.Barrier(3, timeout=10)

    def sync_tool(ctx: ToolContext) -> Any:
        gate.wait()
        return body(ctx)

    async def async_tool(ctx: ToolContext) -> Any:
        gate.wait()  # blocks only this tool's own event loop
        return body(ctx)

    tool = async_tool if flavor == "sync" else sync_tool
    results = batch(dsn, flavor, [ToolCall(tool, f"k{i}", "t", {"q": i}) for i in range(3)],
                    channel_id=channel)
    assert results == [{"ran": f"k{i}", "q": i} for i in range(3)]
    assert sent == ["claim_executions", "complete_executions"]


def test_rerun_after_completion_calls_no_tool_and_returns_the_same_results(
    dsn: str, unique: Any, flavor: str, sent: list[str]
) -> None:
    channel, body = unique("batch"), Recorder()
    first = batch(dsn, flavor, searches(flavor, body, 3), channel_id=channel)
    sent.clear()
    again = batch(dsn, flavor, searches(flavor, body, 3), channel_id=channel)
    assert again == first
    assert len(body.contexts) == 3  # the first run's calls only
    assert sent == ["claim_executions"]


def test_a_mix_replays_the_completed_and_runs_the_new(
    dsn: str, unique: Any, flavor: str, sent: list[str]
) -> None:
    channel, body = unique("batch"), Recorder()
    with SyncActaeClient(dsn, max_size=1) as client:
        owned = client.claim_execution(channel, "search:0", "search", {"q": "q0"})
        assert owned.claim_token is not None
        client.complete_execution(owned.execution.id, owned.claim_token, {"earlier": True})
    sent.clear()
    results = batch(dsn, flavor, searches(flavor, body, 2), channel_id=channel)
    assert results == [{"earlier": True}, {"ran": "search:1", "q": "q1"}]
    assert body.keys() == ["search:1"]
    assert sent == ["claim_executions", "complete_executions"]
    assert rows(dsn, channel)["search:1"].status == "completed"


def test_plain_tuples_and_an_empty_batch(dsn: str, unique: Any, flavor: str,
                                         sent: list[str]) -> None:
    channel, body = unique("batch"), Recorder()
    tool = make_tool(flavor, body)
    results = batch(dsn, flavor, [(tool, "a", "search", {"q": 1}),
                                  (tool, "b", "search", {"q": 2}, ["q"])], channel_id=channel)
    assert results == [{"ran": "a", "q": 1}, {"ran": "b", "q": 2}]
    sent.clear()
    assert batch(dsn, flavor, [], channel_id=channel) == []
    assert sent == []


def test_a_key_repeated_in_the_batch_runs_once(dsn: str, unique: Any, flavor: str) -> None:
    channel, body = unique("batch"), Recorder()
    call = ToolCall(make_tool(flavor, body), "k", "search", {"q": "same"})
    assert batch(dsn, flavor, [call, call], channel_id=channel) == [{"ran": "k", "q": "same"}] * 2
    assert body.keys() == ["k"]


# --- errors: every outcome recorded before anything is raised ------------------------------


def test_one_tool_raising_records_the_others_and_raises(
    dsn: str, unique: Any, flavor: str, sent: list[str]
) -> None:
    channel, body, calls_made = unique("batch"), Recorder(), Recorder()

    def flaky(ctx: ToolContext) -> Any:
        calls_made(ctx)
        if len(calls_made.contexts) == 1:
            raise ConnectionError("provider timed out")
        return {"ok": ctx.attempt}

    tool_calls = [*searches(flavor, body, 3)]
    tool_calls.insert(1, ToolCall(make_tool(flavor, flaky), "flaky", "charge", {"q": "x"}))
    with pytest.raises(ConnectionError, match="provider timed out"):
        batch(dsn, flavor, tool_calls, channel_id=channel)
    assert sent == ["claim_executions", "complete_executions", "fail_execution"]
    stored = rows(dsn, channel)
    assert {k: e.status for k, e in stored.items()} == {
        "search:0": "completed", "flaky": "failed", "search:1": "completed",
        "search:2": "completed"}
    assert stored["flaky"].retryable is True
    assert stored["flaky"].error == "ConnectionError: provider timed out"

    # a re-run replays the three and reclaims the retryable failure
    results = batch(dsn, flavor, tool_calls, channel_id=channel)
    assert results[1] == {"ok": 2}
    assert results[0] == {"ran": "search:0", "q": "q0"}
    assert len(body.contexts) == 3 and len(calls_made.contexts) == 2


class CardDeclined(PermanentError):
    pass


def test_permanent_error_fails_for_good(dsn: str, unique: Any, flavor: str) -> None:
    channel, body = unique("batch"), Recorder()

    def declined(ctx: ToolContext) -> Any:
        raise CardDeclined("card ending 4242 was declined")

    tool_calls = [ToolCall(make_tool(flavor, declined), "charge", "charge", {"q": 1}),
                  *searches(flavor, body, 1)]
    with pytest.raises(CardDeclined):
        batch(dsn, flavor, tool_calls, channel_id=channel)
    stored = rows(dsn, channel)
    assert (stored["charge"].status, stored["charge"].retryable) == ("failed", False)
    assert stored["search:0"].status == "completed"
    # later: the stored error is raised, the other element still replays, no tool runs
    with pytest.raises(ToolFailed, match="CardDeclined: card ending 4242 was declined"):
        batch(dsn, flavor, tool_calls, channel_id=channel)
    assert len(body.contexts) == 1


def test_the_first_error_in_element_order_is_raised(dsn: str, unique: Any, flavor: str) -> None:
    channel = unique("batch")

    def boom(message: str) -> Body:
        def fail(ctx: ToolContext) -> Any:
            raise ValueError(message)
        return fail

    tool_calls = [ToolCall(make_tool(flavor, boom("first")), "a", "t", {}),
                  ToolCall(make_tool(flavor, boom("second")), "b", "t", {})]
    with pytest.raises(ValueError, match="first"):
        batch(dsn, flavor, tool_calls, channel_id=channel)
    stored = rows(dsn, channel)
    assert stored["b"].error == "ValueError: second"  # recorded all the same


def test_an_interrupt_records_the_others_and_leaves_its_own_unrecorded(
    dsn: str, unique: Any, sent: list[str]
) -> None:
    channel, body = unique("batch"), Recorder()

    def interrupted(ctx: ToolContext) -> Any:
        raise KeyboardInterrupt

    tool_calls = [ToolCall(interrupted, "stop", "t", {}), *searches("sync", body, 2)]
    with pytest.raises(KeyboardInterrupt):
        batch(dsn, "sync", tool_calls, channel_id=channel)
    assert sent == ["claim_executions", "complete_executions"]
    stored = rows(dsn, channel)
    # like a crash: no outcome for it, the lease lapses and the next claim is ambiguous
    assert stored["stop"].status == "claimed"
    assert (stored["search:0"].status, stored["search:1"].status) == ("completed", "completed")


# --- elements another worker owns or settled -----------------------------------------------


def test_an_element_in_progress_elsewhere_is_waited_for_after_the_batch_is_recorded(
    dsn: str, unique: Any, flavor: str
) -> None:
    channel, body = unique("batch"), Recorder()
    with SyncActaeClient(dsn, max_size=1) as other:
        owned = other.claim_execution(channel, "search:0", "search", {"q": "q0"})
        token = owned.claim_token
        assert token is not None

        def finish_later() -> None:
            # the batch's own element is recorded before run_tools waits for this one
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                found = rows(dsn, channel).get("search:1")
                if found is not None and found.status == "completed":
                    break
                time.sleep(0.02)
            other.complete_execution(owned.execution.id, token, {"by": "other worker"})

        worker = threading.Thread(target=finish_later)
        worker.start()
        results = batch(dsn, flavor, searches(flavor, body, 2), channel_id=channel,
                        wait_timeout=10)
        worker.join()
    assert results == [{"by": "other worker"}, {"ran": "search:1", "q": "q1"}]
    assert body.keys() == ["search:1"]


def test_wait_timeout_raises_tool_in_progress_with_the_others_recorded(
    dsn: str, unique: Any, flavor: str
) -> None:
    channel, body = unique("batch"), Recorder()
    with SyncActaeClient(dsn, max_size=1) as other:
        other.claim_execution(channel, "search:1", "search", {"q": "q1"})
    with pytest.raises(ToolInProgress):
        batch(dsn, flavor, searches(flavor, body, 3), channel_id=channel, wait_timeout=0.2)
    stored = rows(dsn, channel)
    assert {k: e.status for k, e in stored.items()} == {
        "search:0": "completed", "search:1": "claimed", "search:2": "completed"}


def test_a_client_closed_right_after_a_cancel_still_gives_the_lease_back(
    dsn: str, unique: Any
) -> None:
    """The usual end of an interrupted program: the caller is cancelled and the client
    closed at once (leaving `async with`). close() waits for the give-back, so the claim's
    lease is a second, not the whole 60 s (the pool was closed before it was sent)."""
    channel = unique("give-back-close")

    async def slow(ctx: ToolContext) -> Any:
        await asyncio.sleep(30)

    async def main() -> None:
        async with ActaeClient(dsn, max_size=2) as client:
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(client.run_tool(
                    slow, channel_id=channel, key_name="k", tool_name="t", params={}), 0.3)

    run(main())
    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "select extract(epoch from lease_expires_at - clock_timestamp())"
            " from actae.executions where channel_id = %s", (channel,)).fetchone()
    assert row is not None and row[0] < 5, row


def test_a_close_cancelled_while_it_waits_for_a_give_back_still_closes_the_pool(
    dsn: str, unique: Any
) -> None:
    """close() waits for the leases being given back; cancelled in that wait (a second
    cancel of the task leaving `async with`), it still closes the pool it owns."""
    channel = unique("give-back-close")

    async def unwinding(ctx: ToolContext) -> Any:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            await asyncio.shield(asyncio.sleep(1.5))  # slow to stop
            raise

    async def main() -> bool:
        client = ActaeClient(dsn, max_size=2)
        await client.open()
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(client.run_tool(
                unwinding, channel_id=channel, key_name="k", tool_name="t", params={}), 0.3)
        closing = asyncio.create_task(client.close())
        await asyncio.sleep(0.2)
        closing.cancel()
        with pytest.raises(asyncio.CancelledError):
            await closing
        return client.pool.closed

    assert run(main())


def test_wait_timeout_bounds_the_wait_for_every_element_in_progress_together(
    dsn: str, unique: Any, flavor: str
) -> None:
    """Two elements held by another worker, the first completed by it after 1.5 s: the
    second is waited for only what is left of wait_timeout, not a whole one of its own, so
    ToolInProgress comes about wait_timeout (2 s) after the start, not near 3.5 s."""
    channel = unique("batch")
    with SyncActaeClient(dsn, max_size=2) as other:
        first = other.claim_execution(channel, "a", "t", {}, None, 60)
        other.claim_execution(channel, "b", "t", {}, None, 60)
        assert first.claim_token is not None
        token = first.claim_token
        finish = threading.Timer(1.5, lambda: other.complete_execution(
            first.execution.id, token, {"by": "other"}))
        finish.start()
        started = time.monotonic()
        try:
            with pytest.raises(ToolInProgress):
                batch(dsn, flavor, [ToolCall(make_tool(flavor, lambda ctx: 1), "a", "t", {}),
                                    ToolCall(make_tool(flavor, lambda ctx: 2), "b", "t", {})],
                      channel_id=channel, wait_timeout=2.0)
            took = time.monotonic() - started
        finally:
            finish.join()
    assert 2.0 <= took < 2.75, took


def test_in_progress_elsewhere_is_not_waited_for_once_an_element_failed(
    dsn: str, unique: Any, flavor: str
) -> None:
    channel = unique("batch")
    with SyncActaeClient(dsn, max_size=1) as other:
        other.claim_execution(channel, "elsewhere", "t", {}, None, 60)

    def broken(ctx: ToolContext) -> Any:
        raise RuntimeError("provider down")

    tool_calls = [ToolCall(make_tool(flavor, broken), "elsewhere", "t", {}),
                  ToolCall(make_tool(flavor, broken), "mine", "t", {})]
    # waiting would end in ToolInProgress for the first element, raised first
    with pytest.raises(RuntimeError, match="provider down"):
        batch(dsn, flavor, tool_calls, channel_id=channel, wait_timeout=2)
    stored = rows(dsn, channel)
    assert (stored["mine"].status, stored["elsewhere"].status) == ("failed", "claimed")


def test_a_waited_for_element_that_fails_ends_the_waiting(
    dsn: str, unique: Any, flavor: str
) -> None:
    """Two elements in progress elsewhere (workers that died): the first is taken over once
    its lease lapses and its tool fails; the second is then not waited for, as when an
    element of the batch itself failed. Its key repeated, the second copy used to claim the
    failed key again and call the tool a second time in the same run_tools call."""
    calls: list[str] = []

    def broken(ctx: ToolContext) -> Any:
        calls.append(ctx.key_name)
        raise RuntimeError("provider timeout")

    def fine(ctx: ToolContext) -> Any:
        calls.append(ctx.key_name)
        return {"ok": ctx.key_name}

    for keys, tools in ((["call_1", "call_1"], [broken, broken]), (["a", "b"], [broken, fine])):
        channel = unique("batch")
        with SyncActaeClient(dsn, max_size=1) as other:
            for key in dict.fromkeys(keys):
                other.claim_execution(channel, key, "charge", {}, None, 1)
        calls.clear()
        tool_calls = [ToolCall(make_tool(flavor, tool), key, "charge", {})
                      for key, tool in zip(keys, tools, strict=True)]
        with pytest.raises(RuntimeError, match="provider timeout"):
            batch(dsn, flavor, tool_calls, channel_id=channel, wait_timeout=10)
        assert calls == keys[:1], keys  # the failed tool once, the next element not run
        assert rows(dsn, channel)[keys[0]].attempt == 2


def test_an_element_failed_earlier_raises_its_stored_error(
    dsn: str, unique: Any, flavor: str
) -> None:
    channel, body = unique("batch"), Recorder()
    with SyncActaeClient(dsn, max_size=1) as client:
        owned = client.claim_execution(channel, "search:0", "search", {"q": "q0"})
        assert owned.claim_token is not None
        client.fail_execution(owned.execution.id, "gone for good", owned.claim_token,
                              retryable=False)
    with pytest.raises(ToolFailed, match="gone for good"):
        batch(dsn, flavor, searches(flavor, body, 2), channel_id=channel)
    assert body.keys() == ["search:1"]
    assert rows(dsn, channel)["search:1"].status == "completed"


def test_cancel_requested_stops_that_tool_while_the_others_complete(
    dsn: str, unique: Any, flavor: str
) -> None:
    channel, body = unique("batch"), Recorder()
    started, stopped = threading.Event(), threading.Event()

    tool = endless_tool(flavor, started, stopped)

    def operator() -> None:
        started.wait(10)
        execution = rows(dsn, channel)["endless"]
        with SyncActaeClient(dsn, max_size=1) as client:
            client.cancel_execution(execution.id, "user pressed stop")

    thread = threading.Thread(target=operator)
    thread.start()
    tool_calls = [*searches(flavor, body, 2), ToolCall(tool, "endless", "endless", {"q": 0})]
    with pytest.raises(Cancelled, match="cancelled: user pressed stop"):
        batch(dsn, flavor, tool_calls, channel_id=channel, lease_seconds=1)
    thread.join()
    assert stopped.wait(2)
    stored = rows(dsn, channel)
    assert (stored["endless"].status, stored["endless"].retryable) == ("cancelled", False)
    assert (stored["search:0"].status, stored["search:1"].status) == ("completed", "completed")


def test_a_cancelled_caller_stops_every_tool_of_the_batch(dsn: str, unique: Any) -> None:
    """asyncio.wait_for cancels run_tools while three tools run: each of them is stopped
    (the one run_tools was waiting on and the two others), so none goes on unwatched; the
    next run_tools takes every call over."""
    channel = unique("batch")
    ended: list[str] = []

    def tool(name: str) -> Callable[[ToolContext], Any]:
        async def slow(ctx: ToolContext) -> Any:
            try:
                await asyncio.sleep(1.0)
            except asyncio.CancelledError:
                ended.append(f"{name} stopped")
                raise
            ended.append(f"{name} ran to the end (attempt {ctx.attempt})")
            return name
        return slow

    tool_calls = [ToolCall(tool(n), n, "t", {"n": n}) for n in ("a", "b", "c")]

    async def main() -> list[Any]:
        async with ActaeClient(dsn, max_size=3) as client:
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(
                    client.run_tools(tool_calls, channel_id=channel, lease_seconds=1), 0.3)
            await asyncio.sleep(1.2)
            assert sorted(ended) == ["a stopped", "b stopped", "c stopped"]
            ended.clear()
            return await client.run_tools(tool_calls, channel_id=channel, lease_seconds=1)

    assert run(main()) == ["a", "b", "c"]
    assert sorted(ended) == [f"{n} ran to the end (attempt 2)" for n in "abc"]


def test_a_cancelled_caller_gives_its_async_tools_leases_back(dsn: str, unique: Any) -> None:
    """A caller cancelled while its async tools run (a framework cancelling the siblings of
    a failed tool, a timeout): once they have stopped, their claims' leases are given back
    (shortened to a second), so the next call takes them over at once, as ambiguous, not
    after the whole 60 s lease (it waited all of it). A sync tool's thread cannot be
    stopped: its claim keeps its lease."""
    channel = unique("give-back")
    attempts: list[tuple[str, int, bool]] = []

    async def slow(ctx: ToolContext) -> Any:
        attempts.append((ctx.key_name, ctx.attempt, ctx.ambiguous))
        if ctx.attempt == 1:
            await asyncio.sleep(30)
        return ctx.key_name

    def blocking(ctx: ToolContext) -> Any:
        time.sleep(2)
        return ctx.key_name

    async def main() -> tuple[list[Any], float, str]:
        async with ActaeClient(dsn, max_size=3) as client:
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(client.run_tools(
                    [ToolCall(slow, "a", "t", {}), ToolCall(slow, "b", "t", {})],
                    channel_id=channel), 0.3)
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(client.run_tool(
                    blocking, channel_id=channel, key_name="s", tool_name="t", params={}), 0.3)
            started = time.monotonic()
            again = await client.run_tools(
                [ToolCall(slow, "a", "t", {}), ToolCall(slow, "b", "t", {})],
                channel_id=channel, wait_timeout=20)
            took = time.monotonic() - started
            held = await client.claim_execution(channel, "s", "t", {})
            return again, took, held.status

    again, took, held = run(main())
    assert again == ["a", "b"]
    assert took < 10, took  # the leases were given back, not waited out (60 s)
    assert sorted(attempts) == [("a", 1, False), ("a", 2, True), ("b", 1, False), ("b", 2, True)]
    assert held == "in_progress"  # the sync tool's claim keeps its lease


def test_a_cancellation_that_cannot_be_recorded_still_records_the_others(
    dsn: str, unique: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Element "a" is cancelled by an operator while it runs, and recording its
    cancellation fails (the connection drops for that one statement): run_tools still
    waits for "b" and records its result, then raises a's error."""
    channel = unique("batch")
    b_done = threading.Event()
    # the dropped record is sent again for this long (10 s of the test's time otherwise)
    monkeypatch.setattr(tool_plans, "RECORD_RETRY_SECONDS", 1.0)

    async def victim(ctx: ToolContext) -> Any:
        await asyncio.sleep(10)

    async def slow(ctx: ToolContext) -> Any:
        await asyncio.sleep(1.5)
        b_done.set()
        return "b"

    async def main() -> None:
        async with ActaeClient(dsn, max_size=3) as client:
            send = client._coalescer._execute  # every call of a plan goes through it

            async def dropping_fail(call: Call[Any]) -> Any:
                if call.sql == calls.FAIL:
                    raise psycopg.OperationalError("server closed the connection")
                return await send(call)

            monkeypatch.setattr(client._coalescer, "_execute", dropping_fail)

            async def operator() -> None:
                await asyncio.sleep(0.3)
                execution = await client.get_execution(channel_id=channel, key_name="a")
                await client.cancel_execution(execution.id, "operator")

            stopper = asyncio.create_task(operator())
            with pytest.raises(psycopg.OperationalError, match="server closed"):
                await client.run_tools([ToolCall(victim, "a", "t", {}),
                                        ToolCall(slow, "b", "t", {})],
                                       channel_id=channel, lease_seconds=1)
            await stopper

    run(main())
    assert b_done.is_set()
    stored = rows(dsn, channel)
    assert (stored["b"].status, stored["b"].result) == ("completed", "b")
    assert stored["a"].status in ("claimed", "in_progress") and stored["a"].cancel_requested


def test_a_long_tool_is_heartbeated_past_its_lease(
    dsn: str, unique: Any, flavor: str, sent: list[str]
) -> None:
    """With a 1 s lease, a 1.5 s tool needs heartbeats, or another claim could take it."""
    channel, body = unique("batch"), Recorder()

    def slow(ctx: ToolContext) -> Any:
        time.sleep(1.5)
        return "slow done"

    async def aslow(ctx: ToolContext) -> Any:
        await asyncio.sleep(1.5)
        return "slow done"

    tool_calls = [ToolCall(slow if flavor == "sync" else aslow, "slow", "t", {}),
                  *searches(flavor, body, 1)]
    assert batch(dsn, flavor, tool_calls, channel_id=channel, lease_seconds=1) == [
        "slow done", {"ran": "search:0", "q": "q0"}]
    assert sent.count("heartbeat_execution") >= 2
    assert sent[0] == "claim_executions" and sent[-1] == "complete_executions"
    assert rows(dsn, channel)["slow"].status == "completed"


# --- takeovers and crashes ------------------------------------------------------------------


@pytest.mark.usefixtures("real_clock")
def test_a_refused_batch_completion_still_records_the_other_results(
    dsn: str, unique: Any, sent: list[str]
) -> None:
    """Element "taken"'s lease lapses and another worker takes it over while its tool runs:
    complete_executions refuses the whole batch (it names that element), so each result is
    recorded on its own; the taken-over element raises LeaseLost, the other is recorded."""
    channel, body = unique("batch"), Recorder()

    def taken(ctx: ToolContext) -> Any:
        with SyncActaeClient(dsn, max_size=1) as other:
            mine = other.get_execution(channel_id=channel, key_name="taken")
            move_clock_past(dsn, mine.lease_expires_at)
            assert other.claim_execution(channel, "taken", "t", {}).status == "reclaimed"
        return "computed, but no longer ours to record"

    tool_calls = [ToolCall(taken, "taken", "t", {}), *searches("sync", body, 1)]
    with pytest.raises(LeaseLost):
        batch(dsn, "sync", tool_calls, channel_id=channel, lease_seconds=1)
    ours = [name for name in sent if name not in ("get_execution", "claim_execution")]
    assert ours == ["claim_executions", "complete_executions", "complete_execution",
                    "complete_execution"]  # the other two are the tool's own takeover
    stored = rows(dsn, channel)
    assert (stored["search:0"].status, stored["search:0"].result) == (
        "completed", {"ran": "search:0", "q": "q0"})
    assert (stored["taken"].status, stored["taken"].fence) == ("claimed", 2)


CRASHING = """
import sys, time
from actae import SyncActaeClient
from actae.plans import tools as tool_plans
from actae.plans.tools import ToolCall

dsn, channel = sys.argv[1], sys.argv[2]

def hang(ctx):
    print("running", flush=True)
    time.sleep(60)

def quick(ctx):
    return "never recorded"

with SyncActaeClient(dsn, max_size=1) as client:
    client.run_tools([ToolCall(hang, "hang", "t", {}), ToolCall(quick, "quick", "t", {})],
                     channel_id=channel, lease_seconds=1)
"""


@pytest.mark.usefixtures("real_clock")
def test_after_a_sigkill_the_next_run_tools_takes_every_call_over(
    dsn: str, unique: Any, flavor: str
) -> None:
    """A real process runs run_tools and is SIGKILLed while one tool hangs (the other
    finished, its result not yet recorded: results are recorded together). Once the leases
    lapse, the next run_tools reclaims both, as ambiguous takeovers, and records them."""
    channel = unique("batch")
    worker = subprocess.Popen([sys.executable, "-c", CRASHING, dsn, channel],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert worker.stdout is not None
        assert worker.stdout.readline().strip() == "running"
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(10)
    assert worker.returncode == -signal.SIGKILL
    before = rows(dsn, channel)
    assert {k: e.status for k, e in before.items()} == {"hang": "claimed", "quick": "claimed"}
    move_clock_past(dsn, max(e.lease_expires_at for e in before.values()))
    body = Recorder()

    def again(ctx: ToolContext) -> Any:
        body(ctx)
        return {"key": ctx.key_name, "fence": ctx.fence, "ambiguous": ctx.ambiguous}

    tool = make_tool(flavor, again)
    results = batch(dsn, flavor, [ToolCall(tool, "hang", "t", {}),
                                  ToolCall(tool, "quick", "t", {})], channel_id=channel)
    assert results == [{"key": "hang", "fence": 2, "ambiguous": True},
                       {"key": "quick", "fence": 2, "ambiguous": True}]
    assert {k: e.status for k, e in rows(dsn, channel).items()} == {
        "hang": "completed", "quick": "completed"}


def test_an_ambiguous_takeover_inside_a_batch_is_logged(
    dsn: str, unique: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The observer logs each element of a batch's reply as it logs a single call's: an
    element taken over from a worker that died mid-call is the same WARNING as for
    run_tool (it was not logged at all: the batch's reply is a list)."""
    channel = unique("batch-log")
    with SyncActaeClient(dsn, max_size=1) as client, psycopg.connect(dsn) as conn:
        dead = client.claim_execution(channel, "k", "t", {}, lease_seconds=30)  # then "dies"
        conn.execute("update actae.executions set lease_expires_at = clock_timestamp()"
                     " - interval '1 second' where execution_id = %s", (dead.execution.id,))
        conn.commit()
        with caplog.at_level(logging.INFO, logger="actae"):
            assert client.run_tools([ToolCall(lambda ctx: ctx.fence, "k", "t", {}),
                                     ToolCall(lambda ctx: ctx.fence, "new", "t", {})],
                                    channel_id=channel) == [2, 1]
    takeovers = [r for r in caplog.records if "ambiguous takeover" in r.getMessage()]
    assert len(takeovers) == 1 and takeovers[0].levelno == logging.WARNING
    assert takeovers[0].actae["key_name"] == "k"


def test_a_listing_does_not_log_its_rows_again(
    dsn: str, unique: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """Only a batch reply is logged element by element: listing a cancel-requested
    execution (the console, `actae executions`) logs nothing about it."""
    channel = unique("batch-list")
    with SyncActaeClient(dsn, max_size=1) as client:
        claim = client.claim_execution(channel, "k", "t", {})
        client.cancel_execution(claim.execution.id, "stop", channel_id=channel)
        with caplog.at_level(logging.INFO, logger="actae"):
            for _ in range(2):
                assert len(client.list_executions(channel_id=channel)) == 1
    assert not [r for r in caplog.records if "cancellation requested" in r.getMessage()]
