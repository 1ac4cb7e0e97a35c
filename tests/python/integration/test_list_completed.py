"""list_completed through the client (a fork's inherited results and policies, paging), and
the worker's prefetch built on it: a run resumed in a fork replays the inherited prefix
with no round trip per step, and the claim itself brings the prefix (no read of its own)."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from typing import Any

import psycopg
import pytest

from actae import ActaeClient, Run, SyncActaeClient, ToolContext, Worker, calls, observe
from actae import worker as worker_module
from actae.errors import IdempotencyConflict, InvalidInput, LeaseLost


def _complete(client: SyncActaeClient, channel: str, key: str, tool: str, i: int) -> None:
    claim = client.claim_execution(channel, key, tool, {"i": i})
    assert claim.claim_token is not None
    client.complete_execution(claim.execution.execution_id, claim.claim_token, {"i": i})


def test_fork_sees_inherited_results_and_pages(dsn: str, unique: Callable[..., str]) -> None:
    parent, fork = unique("lc"), unique("lc-fork")
    with SyncActaeClient(dsn, max_size=1) as client:
        for i in range(5):
            _complete(client, parent, f"s{i}", "step", i)
        _complete(client, parent, "mail", "send_email", 9)
        client.record_event(parent, "cut", {})
        client.fork_channel(parent, 1, fork, tool_policies={"send_email": "live"})
        _complete(client, parent, "late", "step", 7)  # after the cut: not inherited
        _complete(client, fork, "s5", "step", 5)

        seen = client.list_completed(fork)
        assert [e.key_name for e in seen] == [f"s{i}" for i in range(6)]
        assert [e.channel_id for e in seen] == [parent] * 5 + [fork]
        assert all(e.claim_token is None for e in seen)
        pages = [client.list_completed(fork, None, 4), client.list_completed(fork, "s3", 4)]
        assert [[e.key_name for e in p] for p in pages] == [["s0", "s1", "s2", "s3"],
                                                            ["s4", "s5"]]
        assert [e.key_name for e in client.list_completed(parent)] == (
            ["late", "mail"] + [f"s{i}" for i in range(5)])


def test_worker_prefetch_replays_a_forks_inherited_prefix(
    dsn: str, unique: Callable[..., str]
) -> None:
    parent, fork, queue = unique("pf"), unique("pf-fork"), unique("q")
    ran: list[int] = []
    hits: list[int] = []

    def step(ctx: ToolContext) -> dict[str, Any]:
        ran.append(ctx.params["i"])
        return {"i": ctx.params["i"]}

    with SyncActaeClient(dsn, max_size=1) as sync:
        for i in range(3):
            _complete(sync, parent, f"s{i}", "step", i)
        sync.fork_channel(parent, 0, fork)

    async def scenario() -> None:
        async with ActaeClient(dsn) as client:
            worker = Worker(client, queue=queue, poll_interval=0.1)

            @worker.agent("steps")
            async def steps(run: Run) -> dict[str, Any]:
                out = [await run.tool(step, key=f"s{i}", params={"i": i}) for i in range(4)]
                hits.append(run.prefetch_hits)
                return {"out": out}

            await client.start_run(fork, "steps", {}, queue)
            task = asyncio.create_task(worker.run_async())
            try:
                deadline = time.monotonic() + 30
                while (await client.get_run(fork)).status != "completed":
                    assert time.monotonic() < deadline, "the run did not complete"
                    await asyncio.sleep(0.05)
            finally:
                worker.stop()
                await asyncio.wait_for(task, 30)
            done = await client.get_run(fork)
            assert done.result == {"out": [{"i": i} for i in range(4)]}

    asyncio.run(scenario())
    assert ran == [3], "only the step the fork did not inherit ran"
    assert hits == [3], "the three inherited steps came from the prefetch"


class _Names(observe.Observer):
    """Records the Actae function of every call the clients send."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def steps(self, call: calls.Call[Any]) -> observe.Steps:
        self.names.append(observe.call_name(call))
        return (yield from super().steps(call))


def _resume(dsn: str, unique: Callable[..., str], recorded: int, steps: int,
            monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], list[str], list[str]]:
    """In a channel whose steps s0 .. s<recorded - 1> are completed, one worker runs an agent
    that calls a tool for each of s0 .. s<steps - 1>; the prefetch hits, the keys whose tool
    ran, and the Actae functions the clients called while the worker ran."""
    channel, queue = unique("pf"), unique("q")
    keys = [f"s{i}" for i in range(steps)]
    with SyncActaeClient(dsn, max_size=1) as sync:
        for i in range(recorded):
            _complete(sync, channel, keys[i], "step", i)
    hits: list[int] = []
    ran: list[str] = []

    def step(ctx: ToolContext) -> dict[str, Any]:
        ran.append(ctx.key_name)
        return {"i": ctx.params["i"]}

    recorder = _Names()
    monkeypatch.setattr(observe, "observer", recorder)

    async def scenario() -> None:
        async with ActaeClient(dsn) as client:
            worker = Worker(client, queue=queue, poll_interval=0.1)

            @worker.agent("steps")
            async def agent(run: Run) -> dict[str, Any]:
                for key in keys:
                    await run.tool(step, key=key, params={"i": int(key[1:])})
                hits.append(run.prefetch_hits)
                return {}

            await client.start_run(channel, "steps", {}, queue)
            recorder.names.clear()
            await worker.run_async(until_idle=True)
            assert (await client.get_run(channel)).status == "completed"

    asyncio.run(scenario())
    return hits, ran, recorder.names


def test_worker_claim_brings_the_prefix_in_its_own_round_trip(
    dsn: str, unique: Callable[..., str], monkeypatch: pytest.MonkeyPatch
) -> None:
    hits, ran, names = _resume(dsn, unique, 3, 4, monkeypatch)
    assert ran == ["s3"] and hits == [3], "the recorded steps replayed from the prefetch"
    assert "list_completed" not in names, names
    assert names.count("claim_runs_with_completed") >= 1 and "complete_run_and_claim" in names
    assert names.count("claim_execution") == 1, "only the new step went to the database"


def test_worker_prefetch_pages_on_after_the_claims_page(
    dsn: str, unique: Callable[..., str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(worker_module, "_PREFETCH_PAGE", 2)
    hits, ran, names = _resume(dsn, unique, 5, 6, monkeypatch)
    assert ran == ["s5"] and hits == [5], "all five recorded steps came from the prefetch"
    # The claim brought s0, s1; list_completed read s2, s3, then s4 (a short page: done).
    assert names.count("list_completed") == 2, names


def test_claim_runs_with_completed_claims_different_runs_with_their_own_prefix(
    dsn: str, unique: Callable[..., str]
) -> None:
    queue = unique("q")
    channels = [unique(f"cr{n}") for n in range(5)]
    with SyncActaeClient(dsn, max_size=1) as client:
        for n, channel in enumerate(channels):
            for i in range(n):  # run n has n completed steps
                _complete(client, channel, f"s{i}", "step", i)
            client.start_run(channel, "steps", {"n": n}, queue)

        first = client.claim_runs_with_completed(queue, "w", 3)
        assert [c.run.channel_id for c in first] == channels[:3], "oldest due first"
        assert all(c.run.outcome == "claimed" and c.run.claim_token for c in first)
        assert [[e.key_name for e in c.completed] for c in first] == [[], ["s0"], ["s0", "s1"]]
        assert all(e.channel_id == c.run.channel_id for c in first for e in c.completed)
        # Fewer due than asked for: the rest, then nothing.
        rest = client.claim_runs_with_completed(queue, "w", 10)
        assert [c.run.channel_id for c in rest] == channels[3:]
        assert [len(c.completed) for c in rest] == [3, 4]
        assert client.claim_runs_with_completed(queue, "w", 10) == []
        assert client.claim_run_with_completed(queue, "w") is None
        assert {client.get_run(ch).worker for ch in channels} == {"w"}


class _Claims(observe.Observer):
    """Records how many runs each statement the clients send claims: ``sizes`` for the
    claim statements, ``handed`` for complete_run's (complete_run_and_claim)."""

    def __init__(self) -> None:
        self.sizes: list[int] = []
        self.handed: list[int] = []

    def steps(self, call: calls.Call[Any]) -> observe.Steps:
        result = yield from super().steps(call)
        name = observe.call_name(call)
        if name in ("claim_run", "claim_runs", "claim_runs_with_completed"):  # a list, or
            # one run or None
            self.sizes.append(len(result) if isinstance(result, list) else int(bool(result)))
        elif name == "complete_run_and_claim":  # (the run, the runs claimed)
            self.handed.append(len(result[1]))
        elif name == "complete_run":
            self.handed.append(0)
        return result


def _work(dsn: str, unique: Callable[..., str], monkeypatch: pytest.MonkeyPatch, runs: int,
          concurrency: int, pause: float, prefetch: bool = True) -> _Claims:
    """One worker with ``concurrency`` slots runs ``runs`` queued runs (each agent sleeps
    ``pause`` s) until idle; what its claims and completions claimed."""
    queue = unique("q")
    channels = [unique(f"wb{n}") for n in range(runs)]
    recorder = _Claims()
    monkeypatch.setattr(observe, "observer", recorder)

    async def scenario() -> None:
        async with ActaeClient(dsn) as client:
            worker = Worker(client, queue=queue, concurrency=concurrency, poll_interval=0.1,
                            prefetch=prefetch)

            @worker.agent("steps")
            async def agent(run: Run) -> dict[str, Any]:
                await asyncio.sleep(pause)
                return {"n": run.record.input["n"]}

            for n, channel in enumerate(channels):
                await client.start_run(channel, "steps", {"n": n}, queue)
            await worker.run_async(until_idle=True)
            for n, channel in enumerate(channels):
                assert (await client.get_run(channel)).result == {"n": n}

    asyncio.run(scenario())
    return recorder


@pytest.mark.parametrize("prefetch", [True, False])
def test_worker_claims_as_many_runs_as_it_has_free_slots_in_one_statement(
    dsn: str, unique: Callable[..., str], monkeypatch: pytest.MonkeyPatch, prefetch: bool
) -> None:
    # The four claimed together are still running when the claim loop looks again.
    recorder = _work(dsn, unique, monkeypatch, runs=5, concurrency=4, pause=0.2,
                     prefetch=prefetch)
    assert recorder.sizes[0] == 4, recorder.sizes
    # The fifth: by a later claim, or by the statement completing one of the four.
    assert sum(recorder.sizes) + sum(recorder.handed) == 5, (recorder.sizes, recorder.handed)


def test_complete_run_and_claim_hands_the_slot_to_the_next_due_run(
    dsn: str, unique: Callable[..., str]
) -> None:
    queue = unique("q")
    first, second = unique("cc1"), unique("cc2")
    with SyncActaeClient(dsn, max_size=1) as client:
        client.start_run(first, "steps", {}, queue)
        _complete(client, second, "s0", "step", 0)
        client.start_run(second, "steps", {}, queue)
        [claimed] = client.claim_runs_with_completed(queue, "w", 1)
        assert claimed.run.channel_id == first and claimed.run.claim_token is not None

        with pytest.raises(LeaseLost):  # a stale token: nothing completed, nothing claimed
            client.complete_run_and_claim(first, uuid.uuid4(), {"ok": 1}, queue, "w")
        assert client.get_run(second).status == "queued"
        # An error of the claim half (max_runs out of range, raised by claim_runs after
        # complete_run ran) undoes the completion too: the statement writes nothing.
        with pytest.raises(InvalidInput, match="max_runs"):
            client.complete_run_and_claim(first, claimed.run.claim_token, {"ok": 1}, queue,
                                          "w", 0)
        assert client.get_run(first).status == "running"
        assert client.get_run(second).status == "queued"

        done, nxt = client.complete_run_and_claim(first, claimed.run.claim_token, {"ok": 1},
                                                  queue, "w")
        assert (done.channel_id, done.status, done.result) == (first, "completed", {"ok": 1})
        assert [(c.run.channel_id, c.run.outcome) for c in nxt] == [(second, "claimed")]
        assert [e.key_name for e in nxt[0].completed] == ["s0"]
        assert nxt[0].run.claim_token is not None
        done, none = client.complete_run_and_claim(second, nxt[0].run.claim_token, None,
                                                   queue, "w", 5)
        assert done.status == "completed" and none == []
        assert client.get_run(first).status == client.get_run(second).status == "completed"


def test_a_worker_slot_passes_to_the_next_run_in_the_completing_statement(
    dsn: str, unique: Callable[..., str], monkeypatch: pytest.MonkeyPatch
) -> None:
    recorder = _work(dsn, unique, monkeypatch, runs=3, concurrency=1, pause=0)
    # The first run was claimed by the claim loop; each completion claimed the next.
    assert recorder.sizes[0] == 1 and sum(recorder.sizes) == 1, recorder.sizes
    assert recorder.handed == [1, 1, 0], recorder.handed


def test_a_failing_completing_claim_still_completes_the_run(
    dsn: str, unique: Callable[..., str], monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise psycopg.OperationalError("the claim half failed")

    monkeypatch.setattr(ActaeClient, "complete_run_and_claim", broken)
    recorder = _work(dsn, unique, monkeypatch, runs=3, concurrency=1, pause=0)
    # Every run completed (checked in _work), each on its own complete_run, claimed by the
    # claim loop.
    assert sum(recorder.sizes) == 3 and recorder.handed == [0, 0, 0], recorder.sizes


@pytest.mark.parametrize("changed", ["params", "tool_name"])
def test_worker_prefetch_does_not_replay_a_different_call_under_a_recorded_key(
    dsn: str, unique: Callable[..., str], changed: str
) -> None:
    """A run's step "charge" was recorded with amount 10; the resumed agent now calls it
    with amount 99 (or as another tool). The server refuses that claim (AC409), and so must
    the prefetch: it may not hand back the recorded result of the other call."""
    channel, queue = unique("pf-diff"), unique("q")
    seen: list[Any] = []

    def charge(ctx: ToolContext) -> dict[str, Any]:
        return {"charged": ctx.params["amount"]}

    with SyncActaeClient(dsn, max_size=1) as sync:
        sync.run_tool(charge, channel_id=channel, key_name="charge", tool_name="charge",
                      params={"amount": 10})

    async def scenario() -> str:
        async with ActaeClient(dsn) as client:
            worker = Worker(client, queue=queue, poll_interval=0.1)

            @worker.agent("pay")
            async def pay(run: Run) -> Any:
                try:
                    done = await run.tool(
                        charge, key="charge",
                        tool_name="refund" if changed == "tool_name" else "charge",
                        params={"amount": 99 if changed == "params" else 10})
                except IdempotencyConflict:
                    seen.append(("refused", run.prefetch_hits))
                    raise
                seen.append(("returned", done, run.prefetch_hits))
                return done

            await client.start_run(channel, "pay", {}, queue, max_attempts=1)
            await asyncio.wait_for(worker.run_async(until_idle=True), 30)
            return (await client.get_run(channel)).status

    assert asyncio.run(scenario()) == "failed"
    assert seen == [("refused", 0)]
