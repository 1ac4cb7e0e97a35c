"""run_tool and compensate, every branch, through both clients against the real server.

Each test runs once with SyncActaeClient and a sync tool, once with ActaeClient and an async
tool. "Other workers" are real: separate connections in other threads. Leases that must lapse
use the shortest legal lease (1 s) and move the database clock past it (real_clock puts the
real clock back after the test) instead of sleeping.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
import pytest

from actae import (
    ActaeClient,
    Cancelled,
    Claim,
    Execution,
    LeaseLost,
    PermanentError,
    SyncActaeClient,
    ToolContext,
    ToolFailed,
    ToolInProgress,
    compensation_key,
    idempotency_key,
)
from actae.fakes import FakeProvider
from tests.python.support.helpers import endless_tool, move_clock_past, run

Body = Callable[[ToolContext], Any]


@pytest.fixture(params=["sync", "async"])
def flavor(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def make_tool(flavor: str, body: Body, seconds: float = 0.0) -> Callable[[ToolContext], Any]:
    """A sync or an async tool that takes `seconds`, then returns body(ctx)."""
    if flavor == "sync":

        def sync_tool(ctx: ToolContext) -> Any:
            time.sleep(seconds)
            return body(ctx)

        return sync_tool

    async def async_tool(ctx: ToolContext) -> Any:
        await asyncio.sleep(seconds)
        return body(ctx)

    return async_tool


def call(dsn: str, flavor: str, method: str, tool: Any, **kw: Any) -> Any:
    """client.<method>(tool, **kw) on a fresh client of the given flavor."""
    if flavor == "sync":
        with SyncActaeClient(dsn, max_size=3) as client:
            return getattr(client, method)(tool, **kw)

    async def main() -> Any:
        async with ActaeClient(dsn, max_size=3) as client:
            return await getattr(client, method)(tool, **kw)

    return run(main())


class Recorder:
    """Remembers every context a tool was called with."""

    def __init__(self, result: Any = None) -> None:
        self.contexts: list[ToolContext] = []
        self.result = result

    def __call__(self, ctx: ToolContext) -> Any:
        self.contexts.append(ctx)
        return self.result if self.result is not None else {"ran": ctx.key_name}


def row(dsn: str, channel: str, key: str) -> Execution:
    with SyncActaeClient(dsn, max_size=1) as client:
        return client.get_execution(channel_id=channel, key_name=key)


def claim(dsn: str, channel: str, key: str, tool_name: str, params: dict[str, Any],
          lease: int = 1) -> Claim:
    with SyncActaeClient(dsn, max_size=1) as client:
        return client.claim_execution(channel, key, tool_name, params, None, lease)


def wait_past_lease(dsn: str, channel: str, key: str) -> None:
    """Move the database clock past the execution's lease (no sleeping)."""
    move_clock_past(dsn, row(dsn, channel, key).lease_expires_at)




# --- claimed and replayed --------------------------------------------------------------


def test_claimed_runs_the_tool_once_then_replays(dsn: str, unique: Any, flavor: str) -> None:
    channel, body = unique("run"), Recorder()
    kw = {"channel_id": channel, "key_name": "search:1", "tool_name": "search",
          "params": {"q": "postgres", "page": 1}, "dedup_fields": ["q"]}
    first = call(dsn, flavor, "run_tool", make_tool(flavor, body), **kw)
    second = call(dsn, flavor, "run_tool", make_tool(flavor, body), **kw)
    assert first == second == {"ran": "search:1"}
    assert len(body.contexts) == 1
    ctx = body.contexts[0]
    assert (ctx.channel_id, ctx.key_name, ctx.tool_name) == (channel, "search:1", "search")
    assert ctx.params == {"q": "postgres", "page": 1}
    assert ctx.idempotency_key == idempotency_key(channel, "search:1")
    assert (ctx.fence, ctx.attempt, ctx.ambiguous) == (1, 1, False)
    stored = row(dsn, channel, "search:1")
    assert (stored.status, stored.result, stored.id) == ("completed", first, ctx.execution_id)


def test_replayed_returns_the_stored_result_without_calling_the_tool(
    dsn: str, unique: Any, flavor: str
) -> None:
    channel = unique("run")
    with SyncActaeClient(dsn, max_size=1) as client:
        owned = client.claim_execution(channel, "k", "charge", {"amount": 5})
        assert owned.claim_token is not None
        client.complete_execution(owned.execution.id, owned.claim_token, {"charge": "ch_1"})

    def never(ctx: ToolContext) -> Any:
        raise AssertionError("a replayed execution must not call the tool")

    result = call(dsn, flavor, "run_tool", make_tool(flavor, never), channel_id=channel,
                  key_name="k", tool_name="charge", params={"amount": 5})
    assert result == {"charge": "ch_1"}


def test_result_is_returned_in_its_stored_json_form(dsn: str, unique: Any, flavor: str) -> None:
    channel = unique("run")
    result = call(dsn, flavor, "run_tool", make_tool(flavor, lambda ctx: ("a", 1)),
                  channel_id=channel, key_name="k", tool_name="t", params={})
    assert result == ["a", 1]  # what a replay returns too


# --- exception path ---------------------------------------------------------------------


def test_retryable_error_is_recorded_and_the_next_call_reclaims(
    dsn: str, unique: Any, flavor: str
) -> None:
    channel, attempts = unique("run"), Recorder()

    def flaky(ctx: ToolContext) -> Any:
        attempts(ctx)
        if len(attempts.contexts) == 1:
            raise ConnectionError("provider timed out")
        return {"ok": ctx.attempt}

    kw = {"channel_id": channel, "key_name": "k", "tool_name": "t", "params": {"x": 1}}
    with pytest.raises(ConnectionError, match="provider timed out"):
        call(dsn, flavor, "run_tool", make_tool(flavor, flaky), **kw)
    failed = row(dsn, channel, "k")
    assert (failed.status, failed.retryable) == ("failed", True)
    assert failed.error == "ConnectionError: provider timed out"

    assert call(dsn, flavor, "run_tool", make_tool(flavor, flaky), **kw) == {"ok": 2}
    second = attempts.contexts[1]
    # reclaimed after a recorded failure: new fence, not ambiguous, same provider key
    assert (second.fence, second.attempt, second.ambiguous) == (2, 2, False)
    assert second.idempotency_key == attempts.contexts[0].idempotency_key
    assert row(dsn, channel, "k").status == "completed"


class CardDeclined(PermanentError):
    pass


def test_permanent_error_fails_for_good_and_later_calls_raise_the_stored_error(
    dsn: str, unique: Any, flavor: str
) -> None:
    channel, body = unique("run"), Recorder()

    def declined(ctx: ToolContext) -> Any:
        body(ctx)
        raise CardDeclined("card ending 4242 was declined")

    kw = {"channel_id": channel, "key_name": "charge", "tool_name": "charge",
          "params": {"amount": 900}}
    with pytest.raises(CardDeclined):
        call(dsn, flavor, "run_tool", make_tool(flavor, declined), **kw)
    stored = row(dsn, channel, "charge")
    assert (stored.status, stored.retryable) == ("failed", False)

    with pytest.raises(ToolFailed) as raised:
        call(dsn, flavor, "run_tool", make_tool(flavor, declined), **kw)
    assert not isinstance(raised.value, Cancelled)
    assert raised.value.message == "CardDeclined: card ending 4242 was declined"
    assert raised.value.detail["execution_id"] == str(stored.id)
    assert len(body.contexts) == 1


# --- reclaimed with ambiguous = true ------------------------------------------------------


@pytest.mark.usefixtures("real_clock")
def test_ambiguous_reclaim_with_and_without_reconcile(
    dsn: str, unique: Any, flavor: str
) -> None:
    """A worker claimed three charges and died (lease 1 s): after charging 'paid' and
    'paid-reconciled', before charging 'unpaid'. Nobody recorded an outcome."""
    channel = unique("run")
    provider = FakeProvider(dsn, namespace=f"{channel}/")
    params = {"amount": 1200}
    for key in ("paid", "paid-reconciled", "unpaid"):
        assert claim(dsn, channel, key, "charge", params).status == "claimed"
    provider.charge(idempotency_key(channel, "paid"), "charge", params)
    provider.charge(idempotency_key(channel, "paid-reconciled"), "charge", params)
    wait_past_lease(dsn, channel, "unpaid")

    charged = Recorder()

    def charge(ctx: ToolContext) -> Any:
        charged(ctx)
        return provider.charge(ctx.idempotency_key, "charge", ctx.params)

    def reconcile(ctx: ToolContext) -> Any:
        return provider.find(ctx.idempotency_key)

    tool = make_tool(flavor, charge)
    # without reconcile: the tool runs again with the same key; the provider deduplicates
    paid = call(dsn, flavor, "run_tool", tool, channel_id=channel, key_name="paid",
                tool_name="charge", params=params)
    assert [(c.key_name, c.ambiguous, c.fence) for c in charged.contexts] == [("paid", True, 2)]
    assert provider.requests(idempotency_key(channel, "paid")) == 2
    assert provider.effects(idempotency_key(channel, "paid")) == 1
    assert paid["effect_id"] == provider.find(idempotency_key(channel, "paid"))["effect_id"]

    # with reconcile, the effect happened: the provider's answer is recorded, no tool call
    found = call(dsn, flavor, "run_tool", tool, channel_id=channel, key_name="paid-reconciled",
                 tool_name="charge", params=params, reconcile=make_tool(flavor, reconcile))
    assert len(charged.contexts) == 1
    assert provider.requests(idempotency_key(channel, "paid-reconciled")) == 1
    stored = row(dsn, channel, "paid-reconciled")
    assert (stored.status, stored.result, stored.fence) == ("completed", found, 2)

    # with reconcile, the effect did not happen: the tool runs
    unpaid = call(dsn, flavor, "run_tool", tool, channel_id=channel, key_name="unpaid",
                  tool_name="charge", params=params, reconcile=make_tool(flavor, reconcile))
    assert [c.key_name for c in charged.contexts] == ["paid", "unpaid"]
    assert charged.contexts[1].ambiguous is True
    assert provider.effects(idempotency_key(channel, "unpaid")) == 1
    assert row(dsn, channel, "unpaid").result == unpaid
    assert provider.effects() == 3


WORKER = """
import sys, time
from actae import SyncActaeClient
from actae.fakes import FakeProvider
dsn, channel, namespace = sys.argv[1:4]
provider = FakeProvider(dsn, namespace=namespace)

def charge(ctx):
    provider.charge(ctx.idempotency_key, "charge", ctx.params)
    print("charged", flush=True)
    time.sleep(60)  # killed here: the effect happened, the ledger has no outcome

with SyncActaeClient(dsn, max_size=2) as client:
    client.run_tool(charge, channel_id=channel, key_name="charge", tool_name="charge",
                    params={"amount": 700}, lease_seconds=1)
"""


@pytest.mark.usefixtures("real_clock")
def test_worker_killed_after_the_effect_is_reconciled_not_repeated(
    dsn: str, unique: Any, flavor: str
) -> None:
    """A real process runs run_tool, the provider charges, and the process is SIGKILLed
    before it can record the result. The next run_tool reconciles with the provider."""
    channel = unique("run")
    namespace = f"{channel}/"
    worker = subprocess.Popen(
        [sys.executable, "-c", WORKER, dsn, channel, namespace],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert worker.stdout is not None
        assert worker.stdout.readline().strip() == "charged"
    finally:
        worker.send_signal(signal.SIGKILL)
        worker.wait(10)
    assert worker.returncode == -signal.SIGKILL
    wait_past_lease(dsn, channel, "charge")  # the dead worker's lease lapses
    provider = FakeProvider(dsn, namespace=namespace)
    body = Recorder()

    def charge(ctx: ToolContext) -> Any:
        body(ctx)
        return provider.charge(ctx.idempotency_key, "charge", ctx.params)

    result = call(dsn, flavor, "run_tool", make_tool(flavor, charge), channel_id=channel,
                  key_name="charge", tool_name="charge", params={"amount": 700},
                  lease_seconds=1,
                  reconcile=make_tool(flavor, lambda ctx: provider.find(ctx.idempotency_key)))
    assert body.contexts == []
    assert result == provider.find(idempotency_key(channel, "charge"))
    assert (provider.effects(), provider.requests()) == (1, 1)
    stored = row(dsn, channel, "charge")
    assert (stored.status, stored.fence, stored.ambiguous) == ("completed", 2, True)


# --- in_progress ------------------------------------------------------------------------


def test_in_progress_waits_for_the_owner_then_replays_its_result(
    dsn: str, unique: Any, flavor: str
) -> None:
    channel, params = unique("run"), {"q": "x"}
    owned = claim(dsn, channel, "k", "search", params, lease=30)
    assert owned.claim_token is not None
    completing_at: list[float] = []

    def owner() -> None:  # the other worker: finishes its tool 0.8 s later
        time.sleep(0.8)
        with SyncActaeClient(dsn, max_size=1) as client:
            # Taken before the call: run_tool may see the commit before this call returns.
            completing_at.append(time.monotonic())
            client.complete_execution(owned.execution.id, owned.claim_token, {"by": "owner"})

    thread = threading.Thread(target=owner)
    thread.start()
    body = Recorder()
    result = call(dsn, flavor, "run_tool", make_tool(flavor, body), channel_id=channel,
                  key_name="k", tool_name="search", params=params)
    returned_at = time.monotonic()
    thread.join()
    assert result == {"by": "owner"}
    assert body.contexts == []
    assert completing_at and returned_at >= completing_at[0]


@pytest.mark.usefixtures("real_clock")
def test_in_progress_owner_that_dies_is_reclaimed_when_its_lease_lapses(
    dsn: str, unique: Any, flavor: str
) -> None:
    channel, params, body = unique("run"), {"q": "x"}, Recorder()
    assert claim(dsn, channel, "k", "search", params, lease=1).status == "claimed"
    # run_tool finds the owner's lease live and waits; then its lease lapses (the clock
    # moves past it while run_tool waits) and run_tool reclaims it.
    lapse = threading.Timer(0.2, wait_past_lease, (dsn, channel, "k"))
    lapse.start()
    try:
        result = call(dsn, flavor, "run_tool", make_tool(flavor, body), channel_id=channel,
                      key_name="k", tool_name="search", params=params)
    finally:
        lapse.join()
    assert result == {"ran": "k"}
    assert [(c.fence, c.ambiguous) for c in body.contexts] == [(2, True)]


def test_wait_timeout_bounds_the_wait(dsn: str, unique: Any, flavor: str) -> None:
    channel, params = unique("run"), {"q": "x"}
    assert claim(dsn, channel, "k", "search", params, lease=30).status == "claimed"
    started = time.monotonic()
    with pytest.raises(ToolInProgress):
        call(dsn, flavor, "run_tool", make_tool(flavor, Recorder()), channel_id=channel,
             key_name="k", tool_name="search", params=params, wait_timeout=0.3)
    assert time.monotonic() - started < 5


def test_concurrent_callers_run_the_tool_once(dsn: str, unique: Any, flavor: str) -> None:
    channel, body = unique("run"), Recorder()
    tool = make_tool(flavor, body, seconds=0.4)
    results: list[Any] = []

    def worker() -> None:
        results.append(call(dsn, flavor, "run_tool", tool, channel_id=channel, key_name="k",
                            tool_name="t", params={"n": 1}, lease_seconds=5))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(body.contexts) == 1
    assert results == [{"ran": "k"}] * 4


# --- heartbeat --------------------------------------------------------------------------


def test_heartbeat_keeps_a_long_tools_lease_alive(dsn: str, unique: Any, flavor: str) -> None:
    """The tool runs 2.5 leases; a second worker keeps trying to claim meanwhile and never
    can, because the lease is extended every third of it."""
    channel, params, body = unique("run"), {"q": "slow"}, Recorder()
    tool = make_tool(flavor, body, seconds=2.5)
    outcomes: list[str] = []
    done = threading.Event()

    def rival() -> None:
        time.sleep(0.3)
        with SyncActaeClient(dsn, max_size=1) as client:
            while not done.is_set():
                seen = client.claim_execution(channel, "k", "slow", params, None, 1)
                outcomes.append(seen.status)
                time.sleep(0.2)

    thread = threading.Thread(target=rival)
    thread.start()
    try:
        result = call(dsn, flavor, "run_tool", tool, channel_id=channel, key_name="k",
                      tool_name="slow", params=params, lease_seconds=1)
    finally:
        done.set()
        thread.join()
    assert result == {"ran": "k"}
    assert len(outcomes) >= 8
    # every rival claim before completion saw in_progress; after it, replayed
    assert set(outcomes) <= {"in_progress", "replayed"}
    assert outcomes[0] == "in_progress" and "in_progress" in outcomes[5:]
    stored = row(dsn, channel, "k")
    assert (stored.status, stored.attempt, stored.fence) == ("completed", 1, 1)
    assert stored.heartbeat_at is not None


# --- cancellation -----------------------------------------------------------------------


def test_cancel_requested_stops_the_tool_and_fails_the_execution(
    dsn: str, unique: Any, flavor: str
) -> None:
    channel, params = unique("run"), {"q": "endless"}
    started, stopped = threading.Event(), threading.Event()

    tool = endless_tool(flavor, started, stopped)

    def operator() -> None:
        started.wait(10)
        execution = row(dsn, channel, "k")
        with SyncActaeClient(dsn, max_size=1) as client:
            client.cancel_execution(execution.id, "user pressed stop")

    thread = threading.Thread(target=operator)
    thread.start()
    began = time.monotonic()
    with pytest.raises(Cancelled, match="cancelled: user pressed stop"):
        call(dsn, flavor, "run_tool", tool, channel_id=channel, key_name="k",
             tool_name="endless", params=params, lease_seconds=1)
    thread.join()
    assert time.monotonic() - began < 5
    assert stopped.wait(2)
    stored = row(dsn, channel, "k")
    assert (stored.status, stored.retryable) == ("cancelled", False)
    assert stored.error == "cancelled: user pressed stop"
    # a later call raises the stored cancellation, without running anything
    with pytest.raises(Cancelled):
        call(dsn, flavor, "run_tool", make_tool(flavor, Recorder()), channel_id=channel,
             key_name="k", tool_name="endless", params=params)


def test_async_client_stops_waiting_for_a_sync_tool_that_ignores_cancellation(
    dsn: str, unique: Any
) -> None:
    """A sync tool cannot be interrupted: under the async client it runs in a daemon thread,
    so a cancellation returns at once instead of waiting for the tool to finish."""
    channel, started = unique("run"), threading.Event()

    def stubborn(ctx: ToolContext) -> Any:
        started.set()
        time.sleep(4)
        return "too late"

    def operator() -> None:
        started.wait(10)
        with SyncActaeClient(dsn, max_size=1) as client:
            client.cancel_execution(row(dsn, channel, "k").id, "deadline passed")

    thread = threading.Thread(target=operator)
    thread.start()
    began = time.monotonic()
    with pytest.raises(Cancelled):
        call(dsn, "async", "run_tool", stubborn, channel_id=channel, key_name="k",
             tool_name="stubborn", params={}, lease_seconds=1)
    elapsed = time.monotonic() - began
    thread.join()
    assert elapsed < 3.5  # the tool itself takes 4 s
    assert row(dsn, channel, "k").error == "cancelled: deadline passed"


def test_lease_taken_over_stops_the_tool_and_raises_lease_lost(
    dsn: str, unique: Any, flavor: str
) -> None:
    """If this worker's heartbeats stalled long enough for another worker to reclaim, the
    next heartbeat is fenced out: run_tool stops the tool and raises LeaseLost. The
    takeover is written the way claim_execution's reclaim writes it (new token, fence + 1),
    because a real stall cannot be forced from inside a live heartbeat loop."""
    channel, params = unique("run"), {"q": "slow"}
    started, stopped = threading.Event(), threading.Event()

    def body(ctx: ToolContext) -> Any:
        started.set()
        return {"late": True}

    def takeover() -> None:
        started.wait(10)
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(
                "update actae.executions set claim_token = gen_random_uuid(),"
                " fence = fence + 1, attempt = attempt + 1, ambiguous = true"
                " where channel_id = %s and key_name = 'k'", (channel,))

    if flavor == "sync":

        def slow(ctx: ToolContext) -> Any:
            result = body(ctx)
            while not ctx.should_stop():
                time.sleep(0.02)
            stopped.set()
            return result

        tool: Any = slow
    else:

        async def aslow(ctx: ToolContext) -> Any:
            result = body(ctx)
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                stopped.set()
                raise
            return result

        tool = aslow

    thread = threading.Thread(target=takeover)
    thread.start()
    with pytest.raises(LeaseLost):
        call(dsn, flavor, "run_tool", tool, channel_id=channel, key_name="k", tool_name="slow",
             params=params, lease_seconds=1)
    thread.join()
    assert stopped.wait(2)
    stored = row(dsn, channel, "k")
    assert (stored.status, stored.fence, stored.result) == ("claimed", 2, None)


# --- compensation -----------------------------------------------------------------------


def test_compensation_is_its_own_durable_step(dsn: str, unique: Any, flavor: str) -> None:
    channel = unique("order")
    provider = FakeProvider(dsn, namespace=f"{channel}/")
    params = {"amount": 4200}

    def charge(ctx: ToolContext) -> Any:
        return provider.charge(ctx.idempotency_key, "charge", ctx.params)

    refunds = Recorder()

    def refund(ctx: ToolContext) -> Any:
        refunds(ctx)
        assert ctx.original is not None
        return provider.charge(ctx.idempotency_key, "refund",
                               {"refunds": ctx.original.result["effect_id"]})

    charged = call(dsn, flavor, "run_tool", make_tool(flavor, charge), channel_id=channel,
                   key_name="charge:1", tool_name="charge", params=params)
    kw = {"channel_id": channel, "key_name": "charge:1", "tool_name": "refund"}
    first = call(dsn, flavor, "compensate", make_tool(flavor, refund), **kw)
    again = call(dsn, flavor, "compensate", make_tool(flavor, refund), **kw)
    assert first == again and first["kind"] == "refund"
    assert len(refunds.contexts) == 1
    ctx = refunds.contexts[0]
    assert ctx.key_name == compensation_key("charge:1") == "compensate:charge:1"
    assert ctx.original is not None and ctx.original.result == charged
    assert ctx.params == {"compensates": "charge:1"}
    assert row(dsn, channel, "compensate:charge:1").status == "completed"
    assert provider.effects() == 2

    # never ran: nothing to undo, nothing recorded
    assert call(dsn, flavor, "compensate", make_tool(flavor, refund), channel_id=channel,
                key_name="charge:never", tool_name="refund") is None
    # still owned by someone: settle it first
    assert claim(dsn, channel, "charge:2", "charge", params, lease=30).status == "claimed"
    with pytest.raises(ToolInProgress):
        call(dsn, flavor, "compensate", make_tool(flavor, refund), channel_id=channel,
             key_name="charge:2", tool_name="refund")
    assert len(refunds.contexts) == 1


# --- mixed tool kinds -----------------------------------------------------------------


def test_each_client_runs_both_sync_and_async_tools(dsn: str, unique: Any) -> None:
    channel = unique("run")
    for client_flavor, tool_flavor in (("sync", "async"), ("async", "sync")):
        key = f"{client_flavor}-client-{tool_flavor}-tool"
        result = call(dsn, client_flavor, "run_tool", make_tool(tool_flavor, Recorder()),
                      channel_id=channel, key_name=key, tool_name="t", params={})
        assert result == {"ran": key}


def test_an_object_with_an_async_call_runs_on_the_callers_loop(dsn: str, unique: Any) -> None:
    # A tool object whose __call__ is async is an async tool: ActaeClient awaits it on the
    # caller's event loop (a loop-bound resource, e.g. an async HTTP client, works in it).
    loops: list[asyncio.AbstractEventLoop] = []

    class Lookup:
        async def __call__(self, ctx: ToolContext) -> dict[str, Any]:
            loops.append(asyncio.get_running_loop())
            return {"ran": ctx.key_name}

    async def main() -> Any:
        async with ActaeClient(dsn, max_size=1) as client:
            result = await client.run_tool(Lookup(), channel_id=unique("run"),
                                           key_name="obj", tool_name="t", params={})
            return result, asyncio.get_running_loop()

    result, caller_loop = asyncio.run(main())
    assert result == {"ran": "obj"}
    assert loops == [caller_loop]


# --- README "What you still own": the snippets, run as written (channel ids made unique) --


@pytest.mark.usefixtures("real_clock")
def test_readme_propagating_the_key_outward(dsn: str, unique: Any) -> None:
    order = unique("order")
    provider = FakeProvider(dsn, namespace=f"{order}/")

    # --- snippet: the provider key and reconcile ---
    def charge_card(ctx: ToolContext) -> dict[str, Any]:
        # Same key on every retry and reclaim of this execution: the provider charges once.
        return provider.charge(ctx.idempotency_key, "charge", ctx.params)

    def find_charge(ctx: ToolContext) -> dict[str, Any] | None:
        # Asked only after a crash left the outcome unknown: did the charge happen?
        return provider.find(ctx.idempotency_key)

    with SyncActaeClient(dsn) as client:
        receipt = client.run_tool(charge_card, channel_id=order, key_name="charge",
                                  tool_name="charge_card", params={"amount_cents": 4200},
                                  reconcile=find_charge)
    # --- end snippet ---
    assert receipt["idempotency_key"] == idempotency_key(order, "charge")
    assert provider.effects() == 1

    # --- snippet: the fence, for downstream systems that can reject stale writers ---
    def ship(ctx: ToolContext) -> dict[str, Any]:
        with psycopg.connect(dsn, autocommit=True) as db:
            row = db.execute(
                "insert into shipments (order_id, fence) values (%s, %s)"
                " on conflict (order_id) do update set fence = excluded.fence"
                " where shipments.fence < excluded.fence returning fence",
                (ctx.params["order_id"], ctx.fence),
            ).fetchone()
        if row is None:
            raise PermanentError("a newer attempt already wrote this shipment")
        return {"order_id": ctx.params["order_id"], "fence": row[0]}
    # --- end snippet ---

    with psycopg.connect(dsn, autocommit=True) as db:
        db.execute("create table if not exists shipments (order_id text primary key,"
                   " fence integer not null)")
    # worker A claims the shipment and stalls past its lease; B takes over (fence 2)
    stale = claim(dsn, order, "ship", "ship", {"order_id": order}, lease=1)
    wait_past_lease(dsn, order, "ship")
    with SyncActaeClient(dsn) as client:
        shipped = client.run_tool(ship, channel_id=order, key_name="ship", tool_name="ship",
                                  params={"order_id": order})
    assert shipped == {"order_id": order, "fence": 2}
    # A wakes up and writes with its old fence: the downstream table refuses it
    late = ToolContext(order, "ship", "ship", {"order_id": order}, "k", stale.fence,
                       stale.execution.id, stale.execution.id, 1, False)
    with pytest.raises(PermanentError):
        ship(late)


def test_readme_compensation(dsn: str, unique: Any) -> None:
    order = unique("order")
    provider = FakeProvider(dsn, namespace=f"{order}/")

    def charge_card(ctx: ToolContext) -> dict[str, Any]:
        return provider.charge(ctx.idempotency_key, "charge", ctx.params)

    def reserve_stock(ctx: ToolContext) -> dict[str, Any]:
        raise PermanentError("sku-3 is out of stock")

    # --- snippet ---
    def refund(ctx: ToolContext) -> dict[str, Any]:
        assert ctx.original is not None  # the completed charge, with the provider's answer
        charge = ctx.original.result
        return provider.charge(ctx.idempotency_key, "refund", {"refunds": charge["effect_id"]})

    with SyncActaeClient(dsn) as client:
        client.run_tool(charge_card, channel_id=order, key_name="charge",
                        tool_name="charge_card", params={"amount_cents": 4200})
        try:
            client.run_tool(reserve_stock, channel_id=order, key_name="reserve",
                            tool_name="reserve_stock", params={"sku": "sku-3"})
        except PermanentError:
            # recorded under key "compensate:charge": a retry of this block refunds once
            client.compensate(refund, channel_id=order, key_name="charge",
                              tool_name="refund")
    # --- end snippet ---
        again = client.compensate(refund, channel_id=order, key_name="charge",
                                  tool_name="refund")
        stored = client.get_execution(channel_id=order, key_name="compensate:charge")
    assert stored.status == "completed" and again == stored.result
    assert provider.effects() == 2  # one charge, one refund


def test_readme_key_lifetime(dsn: str, unique: Any) -> None:
    order = unique("order")
    ran: list[int] = []

    def send_reminder(ctx: ToolContext) -> dict[str, Any]:
        ran.append(ctx.attempt)
        return {"sent": ctx.params["month"]}

    # --- snippet ---
    from datetime import timedelta

    with SyncActaeClient(dsn) as client:
        # keys come from business identity, never from a clock or a per-attempt uuid
        key = f"reminder:{order}:2026-12"
        client.set_key_ttl(order, timedelta(seconds=1))  # e.g. timedelta(days=90)
        client.run_tool(send_reminder, channel_id=order, key_name=key,
                        tool_name="send_reminder", params={"month": "2026-12"})
        client.run_tool(send_reminder, channel_id=order, key_name=key,
                        tool_name="send_reminder", params={"month": "2026-12"})  # replayed
        time.sleep(1.1)
        while client.purge(timedelta(days=36500)).more:  # operators: `actae purge`
            pass
        # the key has expired and was purged: the same key is a new operation now
        client.run_tool(send_reminder, channel_id=order, key_name=key,
                        tool_name="send_reminder", params={"month": "2026-12"})
    # --- end snippet ---
    assert ran == [1, 1]
