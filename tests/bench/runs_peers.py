"""The peers of the runs benchmark, each in its own process (DBOS keeps global state):

    python runs_peers.py absurd|dbos|pgtask new|resume WORKERS RUNS URL

prints one JSON line {"runs": n, "seconds": s}. The agent is the same everywhere: a workflow
of 5 trivial steps. ``new``: the worker is started, then RUNS workflows are started one by
one; timed from the first start to the last completion. ``resume``: RUNS workflows whose 5
steps are already recorded are started again and replay them (Absurd: tasks whose step
checkpoints exist; DBOS: ``fork_workflow`` past the last step of completed workflows); timed
the same way.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
import uuid
from typing import Any

STEPS = 5


def absurd(mode: str, workers: int, runs: int, url: str) -> dict[str, Any]:
    import psycopg
    from absurd_sdk import AsyncAbsurd

    queue = "b" + uuid.uuid4().hex[:12]

    async def main() -> dict[str, Any]:
        app = AsyncAbsurd(url, queue_name=queue)
        await app.create_queue(queue)

        @app.register_task(name="five")
        async def five(params: dict[str, Any], ctx: Any) -> dict[str, Any]:
            for i in range(STEPS):
                async def step(i: int = i) -> dict[str, Any]:
                    return {"ok": True, "i": i}
                await ctx.step(f"s{i}", step)
            return {"ok": True}

        spawner = AsyncAbsurd(url, queue_name=queue)
        ids: list[str] = []
        if mode == "resume":
            for n in range(runs):
                ids.append((await spawner.spawn("five", {"n": n}, queue=queue))["task_id"])
            with psycopg.connect(url, autocommit=True) as conn:  # 5 recorded steps each
                conn.execute(
                    f"insert into absurd.c_{queue} (task_id, checkpoint_name, state, status)"
                    " select t.task_id, 's' || i, jsonb_build_object('ok', true, 'i', i),"
                    " 'committed' from absurd.t_" + queue + " as t,"
                    " generate_series(0, %s) as i", (STEPS - 1,))
        worker = asyncio.create_task(app.start_worker(concurrency=workers, poll_interval=0.05,
                                                      claim_timeout=60))
        t0 = time.perf_counter()
        if mode == "new":
            for n in range(runs):
                await spawner.spawn("five", {"n": n}, queue=queue)
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
            while True:
                row = await (await conn.execute(
                    f"select count(*) from absurd.t_{queue} where state = 'completed'")
                ).fetchone()
                if row and row[0] >= runs:
                    break
                await asyncio.sleep(0.01)
        seconds = time.perf_counter() - t0
        app.stop_worker()
        await asyncio.wait_for(worker, 30)
        await app.close()
        await spawner.close()
        return {"runs": runs, "seconds": seconds}

    return asyncio.run(main())


def dbos(mode: str, workers: int, runs: int, url: str) -> dict[str, Any]:
    from dbos import DBOS, SetWorkflowID

    @DBOS.step()
    def step(i: int) -> dict[str, Any]:
        return {"ok": True, "i": i}

    @DBOS.workflow()
    def five(n: int) -> dict[str, Any]:
        for i in range(STEPS):
            step(i)
        return {"ok": True}

    DBOS(config={"name": "runsbench", "system_database_url": url, "sys_db_pool_size": 20,
                 "executor_id": "runs-" + uuid.uuid4().hex[:6], "log_level": "WARNING",
                 "run_migrations": True})
    name = "q" + uuid.uuid4().hex[:8]
    DBOS.launch()
    queue = DBOS.register_queue(name, worker_concurrency=workers, polling_interval_sec=0.05)
    try:
        prefix = uuid.uuid4().hex[:8]
        if mode == "resume":
            for n in range(runs):  # the originals, untimed
                with SetWorkflowID(f"{prefix}-{n}"):
                    five(n)
        t0 = time.perf_counter()
        handles = []
        for n in range(runs):
            if mode == "new":
                with SetWorkflowID(f"{prefix}-{n}"):
                    handles.append(queue.enqueue(five, n))
            else:
                handles.append(DBOS.fork_workflow(f"{prefix}-{n}", STEPS + 1, queue_name=name))
        for handle in handles:
            handle.get_result()
        return {"runs": runs, "seconds": time.perf_counter() - t0}
    finally:
        DBOS.destroy(destroy_registry=True)


def pgtask(mode: str, workers: int, runs: int, url: str) -> dict[str, Any]:
    """pgtask (``pip install pgtask``): a task of 5 ``task.step`` calls. ``resume``: every
    task first runs its 5 steps and parks on ``wait_for_signal`` (untimed); the clock starts
    when the signals are sent, so each run is claimed again, replays its 5 recorded steps and
    completes."""
    from pgtask import Client, EnqueueRequest, Task, TaskRegistry, Worker

    # pgtask's driver wants a host in the URL even for a Unix socket (?host= overrides it).
    url = url.replace("@/", "@localhost/", 1)
    queue = "p" + uuid.uuid4().hex[:12]
    registry = TaskRegistry(queue_name=queue)

    @registry.task("five")
    async def five(task: Task, payload: Any) -> dict[str, Any]:
        for i in range(STEPS):
            async def step(i: int = i) -> dict[str, Any]:
                return {"ok": True, "i": i}
            await task.step(f"s{i}", step)
        if payload.get("park"):
            await task.wait_for_signal("park", "go")
        return {"ok": True}

    async def states(client: Any, handles: list[Any]) -> list[str]:
        return [(await client.task_result(h.id)).state for h in handles]

    async def until(client: Any, handles: list[Any], state: str) -> None:
        while any(s != state for s in await states(client, handles)):
            await asyncio.sleep(0.01)

    async def main() -> dict[str, Any]:
        client = await Client.connect(url)
        await client.migrate()
        worker = Worker(url, registry, concurrency=workers, poll_interval=0.05,
                        retention_enabled=False, shutdown_grace=1.0)
        running = asyncio.create_task(worker.run())
        park = mode == "resume"
        handles = []
        if park:
            handles = [await client.enqueue(EnqueueRequest("five", {"n": n, "park": True},
                                                           queue_name=queue))
                       for n in range(runs)]
            await until(client, handles, "waiting")
        t0 = time.perf_counter()
        if park:
            for handle in handles:
                await handle.signal("go", True)
        else:
            handles = [await client.enqueue(EnqueueRequest("five", {"n": n}, queue_name=queue))
                       for n in range(runs)]
        await until(client, handles, "succeeded")
        seconds = time.perf_counter() - t0
        worker.shutdown()
        await asyncio.wait_for(running, 30)
        return {"runs": runs, "seconds": seconds}

    return asyncio.run(main())


if __name__ == "__main__":
    peer, mode, workers, runs, url = sys.argv[1:6]
    run = {"absurd": absurd, "dbos": dbos, "pgtask": pgtask}[peer]
    print(json.dumps(run(mode, int(workers), int(runs), url)), flush=True)
