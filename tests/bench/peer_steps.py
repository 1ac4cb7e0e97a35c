"""One durable step, new and replayed, on Actae and the Postgres-native peers Absurd and pgtask:
each on its raw SQL path (the statement its SDK sends, prepared, one transaction per call)
and through its SDK. Factories for load.py (the `peers` group of run.py); `raw(...)` gives
the raw operations on a given connection for the backend-CPU measurement.

args: "dsn" (Actae), "absurd_dsn", "pgtask_dsn", "pgtask_url" (the peers' databases on the
same server), "tag" (unique per run).

What each path does (a *new step* makes one step's result durable; a *replay* reads a
completed step back):
- Actae raw: new = `actae.claim_execution` + `actae.complete_execution` (two commits: the
  claim is recorded before the side effect); replay = `actae.claim_execution` of a completed
  key (outcome replayed, with its result). SDK: `SyncActaeClient.run_tool` (claim, call,
  complete; on a completed key it returns the stored result without calling the tool).
- Absurd raw: new = `absurd.set_task_checkpoint_state(queue, task, step, state, run, null)`
  on a claimed task (its cheapest step write, one commit; no claim extension); replay =
  `absurd.get_task_checkpoint_state(queue, task, step)`. SDK: `AsyncTaskContext.step` inside
  a real task handler: new = a lookup (miss) + `set_task_checkpoint_state`; replay = the
  SDK's own lookup of a recorded step not in the context's cache (the cache entry and name
  counter are cleared before each call: a resumed Absurd run instead loads all its
  checkpoints in one read at claim time, like Actae's prefetch).
- pgtask raw: new = `pgtask.commit_checkpoint(task, attempt, lease_token, step, 0, value)`
  on a claimed task (one commit); replay = `pgtask.get_checkpoint(task, 1, step, 0)`. SDK:
  `Task.step` inside a real task handler: new = `get_checkpoint` (miss) +
  `commit_checkpoint`; replay = `get_checkpoint` of a recorded (step, occurrence), which the
  SDK does for every step (it has no prefetch).
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
import uuid
from collections.abc import Callable, Coroutine
from typing import Any

import psycopg
from contenders import (
    PARAMS,
    REPLAY_KEYS,
    RESULT,
    Factory,
    _client,
    claim_actae_raw,
    replay_actae_raw,
)
from psycopg.types.json import Jsonb

Op = Callable[[], None]
STATE = Jsonb(RESULT)

# --- raw SQL paths (one connection, prepared statements) -----------------------------------

ACTAE_CLAIM = "select outcome, execution_id, claim_token from actae.claim_execution(%s, %s, %s, %s)"
ACTAE_COMPLETE = "select status from actae.complete_execution(%s, %s, %s)"
BARE_READ = ("select e.* from actae.executions as e"
             " where e.channel_id = %s and e.key_name = %s")
ABSURD_SET = "select absurd.set_task_checkpoint_state(%s, %s, %s, %s, %s, null)"
ABSURD_GET = "select state from absurd.get_task_checkpoint_state(%s, %s, %s)"
PGTASK_COMMIT = "select task_id from pgtask.commit_checkpoint(%s, %s, %s, %s, 0, %s)"
PGTASK_GET = "select value from pgtask.get_checkpoint(%s, 1, %s, 0)"


def _names(prefix: str) -> Callable[[], str]:
    counter = iter(range(1 << 62))
    return lambda: f"{prefix}{next(counter)}"


def _actae_recorded(conn: psycopg.Connection[Any], channel: str) -> None:
    for k in range(REPLAY_KEYS):
        row = conn.execute(ACTAE_CLAIM, (channel, f"k{k}", "search", Jsonb(PARAMS))).fetchone()
        assert row is not None
        conn.execute(ACTAE_COMPLETE, (row[1], row[2], STATE))


def actae_replay_one(conn: psycopg.Connection[Any], channel: str) -> Op:
    """Replay of one completed key (the row bare_read reads)."""
    _actae_recorded(conn, channel)

    def op() -> None:
        row = conn.execute(ACTAE_CLAIM, (channel, "k0", "search", Jsonb(PARAMS)),
                           prepare=True).fetchone()
        assert row is not None and row[0] == "replayed", row
    return op


def bare_read(conn: psycopg.Connection[Any], channel: str) -> Op:
    """The primary-key read of that completed key's row: the floor of a replay."""
    def op() -> None:
        assert conn.execute(BARE_READ, (channel, "k0"), prepare=True).fetchone() is not None
    return op


def actae_new(conn: psycopg.Connection[Any], channel: str) -> Op:
    name = _names("n")

    def op() -> None:
        row = conn.execute(ACTAE_CLAIM, (channel, name(), "search", Jsonb(PARAMS)),
                           prepare=True).fetchone()
        assert row is not None and row[0] == "claimed", row
        conn.execute(ACTAE_COMPLETE, (row[1], row[2], STATE), prepare=True).fetchone()
    return op


def _absurd_task(conn: psycopg.Connection[Any], queue: str) -> tuple[Any, Any]:
    """(task_id, run_id) of a task spawned in `queue` and claimed for an hour."""
    # The clients share the queue: it is created once, and the set-up (not measured) runs
    # one client at a time: spawn_task from several clients at once on a queue just created
    # can deadlock inside Absurd.
    with conn.transaction():
        conn.execute("select pg_advisory_xact_lock(18)")
        conn.execute("select absurd.create_queue(%s)", (queue,))
        conn.execute("select * from absurd.spawn_task(%s, 'steps', '{}')", (queue,))
        row = conn.execute("select task_id, run_id from absurd.claim_task(%s, %s, 3600, 1)",
                           (queue, uuid.uuid4().hex)).fetchone()
    assert row is not None, "no Absurd task to claim"
    return row[0], row[1]


def absurd_new(conn: psycopg.Connection[Any], queue: str) -> Op:
    task, run = _absurd_task(conn, queue)
    name = _names("n")

    def op() -> None:
        conn.execute(ABSURD_SET, (queue, task, name(), STATE, run), prepare=True)
    return op


def absurd_replay(conn: psycopg.Connection[Any], queue: str) -> Op:
    task, run = _absurd_task(conn, queue)
    for k in range(REPLAY_KEYS):
        conn.execute(ABSURD_SET, (queue, task, f"s{k}", STATE, run))

    def op() -> None:
        row = conn.execute(ABSURD_GET, (queue, task, f"s{random.randrange(REPLAY_KEYS)}"),
                           prepare=True).fetchone()
        assert row is not None
    return op


def _pgtask_task(conn: psycopg.Connection[Any], queue: str) -> tuple[Any, Any, Any]:
    """(task_id, attempt, lease_token) of a task enqueued in `queue`, claimed for an hour."""
    conn.execute("select * from pgtask.enqueue('steps', '{}', %s)", (queue,))
    row = conn.execute(
        "select id, attempt, lease_token from pgtask.claim(%s, %s, '{steps}', '{1}', 1, 3600000)",
        (queue, uuid.uuid4())).fetchone()
    assert row is not None, "no pgtask task to claim"
    return row[0], row[1], row[2]


def pgtask_new(conn: psycopg.Connection[Any], queue: str) -> Op:
    task, attempt, token = _pgtask_task(conn, queue)
    name = _names("n")

    def op() -> None:
        row = conn.execute(PGTASK_COMMIT, (task, attempt, token, name(), STATE),
                           prepare=True).fetchone()
        assert row is not None, "commit_checkpoint wrote nothing (lease lost?)"
    return op


def pgtask_replay(conn: psycopg.Connection[Any], queue: str) -> Op:
    task, attempt, token = _pgtask_task(conn, queue)
    for k in range(REPLAY_KEYS):
        conn.execute(PGTASK_COMMIT, (task, attempt, token, f"s{k}", STATE))

    def op() -> None:
        row = conn.execute(PGTASK_GET, (task, f"s{random.randrange(REPLAY_KEYS)}"),
                           prepare=True).fetchone()
        assert row is not None
    return op


# (system, case) -> (the args key of its database, the raw operation on a connection)
RAW: dict[tuple[str, str], tuple[str, Callable[[psycopg.Connection[Any], str], Op]]] = {
    ("absurd", "new"): ("absurd_dsn", absurd_new),
    ("absurd", "replay"): ("absurd_dsn", absurd_replay),
    ("pgtask", "new"): ("pgtask_dsn", pgtask_new),
    ("pgtask", "replay"): ("pgtask_dsn", pgtask_replay),
}


def _raw_factory(system: str, case: str) -> Callable[[dict[str, Any], int], Factory]:
    key, make = RAW[(system, case)]

    def factory(args: dict[str, Any], index: int) -> Factory:
        conn = psycopg.connect(args[key], autocommit=True)
        # Absurd: one queue per run (its tables), shared by the clients, as a deployment
        # shares one. pgtask keeps every queue in the same tables, so each client gets a
        # queue of its own: with one shared queue, 8 clients enqueueing and claiming at once
        # could leave one with nothing to claim (its task skipped while another held it).
        queue = f"q{args['tag']}" if system == "absurd" else f"q{args['tag']}-{index}"
        return make(conn, queue), conn.close
    return factory


absurd_raw_new = _raw_factory("absurd", "new")
absurd_raw_replay = _raw_factory("absurd", "replay")
pgtask_raw_new = _raw_factory("pgtask", "new")
pgtask_raw_replay = _raw_factory("pgtask", "replay")
actae_raw_new = claim_actae_raw
actae_raw_replay = replay_actae_raw


def floor_raw_replay(args: dict[str, Any], index: int) -> Factory:
    """The floor of a replay on the raw path: the primary-key read of the completed row the
    Actae replay returns (keys recorded as actae_raw_replay records them), nothing else."""
    conn = psycopg.connect(args["dsn"], autocommit=True)
    channel = f"fr{index}-{args['tag']}"
    _actae_recorded(conn, channel)

    def op() -> None:
        row = conn.execute(BARE_READ, (channel, f"k{random.randrange(REPLAY_KEYS)}"),
                           prepare=True).fetchone()
        assert row is not None
    return op, conn.close


# --- SDK paths ------------------------------------------------------------------------------


def actae_sdk_new(args: dict[str, Any], index: int) -> Factory:
    client = _client(args["dsn"])
    channel, name = f"sn{index}-{args['tag']}", _names("n")

    def op() -> None:
        out = client.run_tool(lambda ctx: RESULT, channel_id=channel, key_name=name(),
                              tool_name="search", params=PARAMS)
        assert out == RESULT, out
    return op, client.close


def actae_sdk_replay(args: dict[str, Any], index: int) -> Factory:
    client = _client(args["dsn"])
    channel = f"sr{index}-{args['tag']}"
    for k in range(REPLAY_KEYS):
        client.run_tool(lambda ctx: RESULT, channel_id=channel, key_name=f"k{k}",
                        tool_name="search", params=PARAMS)

    def never(ctx: Any) -> Any:
        raise AssertionError("a replay ran the tool")

    def op() -> None:
        out = client.run_tool(never, channel_id=channel,
                              key_name=f"k{random.randrange(REPLAY_KEYS)}",
                              tool_name="search", params=PARAMS)
        assert out == RESULT, out
    return op, client.close


class _Handler:
    """A peer's worker on an event loop in a background thread. Its task handler performs
    steps back to back and records (epoch second it ended, seconds it took) for each; `op`
    hands them to load.py, which counts those inside the measured window."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, float]] = []
        self.stop = threading.Event()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=120)

    async def steps(self, step: Callable[[str], Coroutine[Any, Any, Any]], replay: bool) -> None:
        """Record REPLAY_KEYS steps first when replaying, then step until stopped."""
        if replay:
            for k in range(REPLAY_KEYS):
                await step(f"s{k}")
        name = _names("n")
        while not self.stop.is_set():
            key = f"s{random.randrange(REPLAY_KEYS)}" if replay else name()
            t0 = time.perf_counter()
            await step(key)
            self.samples.append((time.time(), time.perf_counter() - t0))

    def op(self) -> list[tuple[float, float]]:
        time.sleep(0.05)
        out, self.samples = self.samples, []
        return out

    def close(self, finish: Coroutine[Any, Any, Any]) -> None:
        self.stop.set()
        self.run(finish)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=30)


def _absurd_sdk(replay: bool) -> Callable[[dict[str, Any], int], Factory]:
    def factory(args: dict[str, Any], index: int) -> Factory:
        from absurd_sdk import AsyncAbsurd

        handler, queue = _Handler(), f"s{index}{args['tag']}"
        calls = [0]

        async def body() -> Any:
            calls[0] += 1
            return RESULT

        async def start() -> tuple[Any, Any]:
            app = AsyncAbsurd(args["absurd_dsn"], queue_name=queue)
            await app.create_queue(queue)

            @app.register_task(name="steps")
            async def steps(params: Any, ctx: Any) -> Any:
                async def step(key: str) -> None:
                    if replay and calls[0] >= REPLAY_KEYS:
                        # The SDK's own lookup, not its per-context cache (see module doc).
                        ctx._checkpoint_cache.pop(key, None)
                        ctx._step_name_counter.pop(key, None)
                    await ctx.step(key, body)
                await handler.steps(step, replay)
                assert not replay or calls[0] == REPLAY_KEYS, "a replay ran the step"
                return RESULT

            worker = asyncio.create_task(app.start_worker(concurrency=1, poll_interval=0.05,
                                                          claim_timeout=3600))
            await app.spawn("steps", {}, queue=queue)
            return app, worker

        app, worker = handler.run(start())

        async def finish() -> None:
            async with await psycopg.AsyncConnection.connect(args["absurd_dsn"],
                                                             autocommit=True) as conn:
                while True:
                    row = await (await conn.execute(
                        f"select count(*) from absurd.t_{queue} where state = 'completed'"
                    )).fetchone()
                    if row and row[0]:
                        break
                    await asyncio.sleep(0.01)
            app.stop_worker()
            await asyncio.wait_for(worker, 30)
            await app.close()

        return handler.op, lambda: handler.close(finish())
    return factory


def _pgtask_sdk(replay: bool) -> Callable[[dict[str, Any], int], Factory]:
    def factory(args: dict[str, Any], index: int) -> Factory:
        from pgtask import Client, EnqueueRequest, Task, TaskRegistry, Worker

        handler, queue, url = _Handler(), f"s{index}{args['tag']}", args["pgtask_url"]
        registry = TaskRegistry(queue_name=queue)
        calls = [0]

        async def body() -> Any:
            calls[0] += 1
            return RESULT

        @registry.task("steps")
        async def steps(task: Task, payload: Any) -> Any:
            async def step(key: str) -> None:
                await task.step(key, body)
            await handler.steps(step, replay)
            assert not replay or calls[0] == REPLAY_KEYS, "a replay ran the step"
            return RESULT

        async def start() -> tuple[Any, Any, Any, Any]:
            client = await Client.connect(url)
            worker = Worker(url, registry, concurrency=1, poll_interval=0.05,
                            retention_enabled=False, shutdown_grace=1.0)
            running = asyncio.create_task(worker.run())
            task = await client.enqueue(EnqueueRequest("steps", {}, queue_name=queue))
            return client, worker, running, task

        client, worker, running, task = handler.run(start())

        async def finish() -> None:
            while (await client.task_result(task.id)).state != "succeeded":
                await asyncio.sleep(0.01)
            worker.shutdown()
            await asyncio.wait_for(running, 30)

        return handler.op, lambda: handler.close(finish())
    return factory


absurd_sdk_new = _absurd_sdk(False)
absurd_sdk_replay = _absurd_sdk(True)
pgtask_sdk_new = _pgtask_sdk(False)
pgtask_sdk_replay = _pgtask_sdk(True)

# (system, path, case) -> load.py factory name in this module
CONTENDERS = {(system, path, case): f"peer_steps:{system}_{path}_{case}"
              for system in ("actae", "absurd", "pgtask") for path in ("raw", "sdk")
              for case in ("new", "replay")}
# The floor of a raw replay, measured in the same rounds (run.py's peers group).
CONTENDERS[("floor", "raw", "replay")] = "peer_steps:floor_raw_replay"
