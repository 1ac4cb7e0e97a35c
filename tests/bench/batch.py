"""Parallel tool calls: N calls as one claim_executions + one complete_executions (2 commits)
against N single claim_execution + complete_execution pairs (2N commits).

`python tests/bench/batch.py [--n 8] [--seconds 3] [--rounds 3] [--out FILE.json]`, or the
`batch` group of run.py.

One throwaway server (server.py settings, port 55452), one client, side by side in one run:
each round measures every contender for --seconds, rounds interleaved; the table shows the
median per-call throughput (tool calls made durable per second, claim and completion both
committed) and the ratio batch / single, through psycopg with prepared statements and
through SyncActaeClient. Commits per N calls are counted, not assumed: the commit records
the WAL holds (pg_walinspect) between the LSNs before and after COMMIT_SAMPLES operations
of each psycopg contender, divided by COMMIT_SAMPLES. `driver: run_tools` is
client.run_tools (the same 2 calls, the tools run concurrently in worker threads), compared
with `driver: run_tool x N` (N run_tool calls one after another); its commits are counted
the same way. `async driver: run_tool x N, gathered` is N ActaeClient.run_tool calls started
together with asyncio.gather, as the frameworks run a model's parallel tool calls (the
client batches their claims and completions by itself), compared with the same N awaited
one after another (`async driver: run_tool x N`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

sys.path.insert(0, str(Path(__file__).resolve().parent))

from server import Server  # noqa: E402

from actae import ActaeClient, SyncActaeClient, ToolContext  # noqa: E402
from actae.plans.tools import ToolCall  # noqa: E402

PORT = 55452
COMMIT_SAMPLES = 20
PARAMS = {"q": "actae"}
RESULT = {"ok": True}

SINGLE_CLAIM = "select execution_id, claim_token from actae.claim_execution(%s, %s, %s, %s)"
SINGLE_COMPLETE = "select status from actae.complete_execution(%s, %s, %s, %s)"
BATCH_CLAIM = ("select execution_id, claim_token from actae.claim_executions("
               "%s, %s::text[], %s::text[], %s::jsonb[])")
BATCH_COMPLETE = ("select status from actae.complete_executions(%s::uuid[], %s::uuid[],"
                  " %s::jsonb[], %s)")

Op = Callable[[], None]


def _keys(n: int) -> Callable[[], list[str]]:
    prefix, counter = uuid.uuid4().hex[:8], iter(range(1 << 62))
    return lambda: [f"{prefix}-{next(counter)}" for _ in range(n)]


def raw_single(conn: psycopg.Connection[Any], n: int) -> Op:
    keys, params, result = _keys(n), Jsonb(PARAMS), Jsonb(RESULT)

    def op() -> None:
        for key in keys():
            row = conn.execute(SINGLE_CLAIM, ("bench-single", key, "search", params),
                               prepare=True).fetchone()
            assert row is not None and row[1] is not None
            conn.execute(SINGLE_COMPLETE, (row[0], row[1], result, "bench-single"),
                         prepare=True).fetchone()

    return op


def raw_batch(conn: psycopg.Connection[Any], n: int) -> Op:
    keys, params, results = _keys(n), [Jsonb(PARAMS)] * n, [Jsonb(RESULT)] * n

    def op() -> None:
        rows = conn.execute(BATCH_CLAIM, ("bench-batch", keys(), ["search"] * n, params),
                            prepare=True).fetchall()
        assert len(rows) == n and all(r[1] is not None for r in rows)
        done = conn.execute(BATCH_COMPLETE, ([r[0] for r in rows], [r[1] for r in rows],
                                             results, "bench-batch"), prepare=True).fetchall()
        assert len(done) == n

    return op


def driver_single(client: SyncActaeClient, n: int) -> Op:
    keys = _keys(n)

    def op() -> None:
        for key in keys():
            claim = client.claim_execution("drv-single", key, "search", PARAMS)
            assert claim.claim_token is not None
            client.complete_execution(claim.execution.execution_id, claim.claim_token, RESULT,
                                      channel_id="drv-single")

    return op


def driver_batch(client: SyncActaeClient, n: int) -> Op:
    keys = _keys(n)

    def op() -> None:
        claims = client.claim_executions("drv-batch", keys(), ["search"] * n, [PARAMS] * n)
        owned = [c.execution for c in claims]
        assert all(e.claim_token is not None for e in owned)
        client.complete_executions([e.execution_id for e in owned],
                                   [e.claim_token for e in owned if e.claim_token],
                                   [RESULT] * n, channel_id="drv-batch")

    return op


def driver_run_tool(client: SyncActaeClient, n: int) -> Op:
    """client.run_tool for each of the N calls, one after another (run_tools' baseline)."""
    keys = _keys(n)

    def search(ctx: ToolContext) -> Any:
        return RESULT

    def op() -> None:
        for key in keys():
            result = client.run_tool(search, channel_id="drv-run-tool", key_name=key,
                                     tool_name="search", params=PARAMS)
            assert result == RESULT

    return op


def driver_run_tools(client: SyncActaeClient, n: int) -> Op:
    """client.run_tools: the same 2 calls as driver_batch, plus the tools run concurrently
    (each in a worker thread) and the decision plan around them."""
    keys = _keys(n)

    def search(ctx: ToolContext) -> Any:
        return RESULT

    def op() -> None:
        results = client.run_tools([ToolCall(search, key, "search", PARAMS) for key in keys()],
                                   channel_id="drv-run-tools")
        assert results == [RESULT] * n

    return op


async def _asearch(ctx: ToolContext) -> Any:
    return RESULT


def async_run_tool(loop: asyncio.AbstractEventLoop, client: ActaeClient, n: int,
                   gathered: bool) -> Op:
    """ActaeClient.run_tool for each of the N calls: awaited one after another, or started
    together (asyncio.gather) so the client batches them."""
    keys = _keys(n)
    channel = "drv-async-gathered" if gathered else "drv-async-run-tool"

    async def call(key: str) -> Any:
        return await client.run_tool(_asearch, channel_id=channel, key_name=key,
                                     tool_name="search", params=PARAMS)

    async def go() -> None:
        if gathered:
            results = await asyncio.gather(*(call(key) for key in keys()))
        else:
            results = [await call(key) for key in keys()]
        assert results == [RESULT] * n

    return lambda: loop.run_until_complete(go())


def measure(op: Op, n: int, seconds: float) -> float:
    """Tool calls per second over `seconds` (after one warm-up op)."""
    op()
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        op()
        calls += n
    return calls / (time.perf_counter() - start)


def commits_per_op(dsn: str, op: Op, samples: int = COMMIT_SAMPLES) -> float | None:
    """Commit records written to the WAL per call of `op` (None without pg_walinspect). The
    server is this group's own, so nothing else commits in between (autovacuum aside)."""
    with psycopg.connect(dsn, autocommit=True) as admin:
        try:
            admin.execute("create extension if not exists pg_walinspect")
        except psycopg.Error:
            return None
        start = admin.execute("select pg_current_wal_insert_lsn()").fetchone()
        for _ in range(samples):
            op()
        row = admin.execute(
            "select count(*) from pg_get_wal_records_info(%s, pg_current_wal_flush_lsn())"
            " where resource_manager = 'Transaction' and record_type = 'COMMIT'",
            start).fetchone()
    assert row is not None
    return row[0] / samples


def measure_all(dsn: str, n: int, seconds: float, rounds_: int,
                log: Callable[[str], None] = print) -> dict[str, Any]:
    """Every contender, rounds interleaved, plus commits per N calls (see the module doc)."""
    loop = asyncio.new_event_loop()
    aclient = ActaeClient(dsn, max_size=1)
    loop.run_until_complete(aclient.open())
    with psycopg.connect(dsn, autocommit=True) as conn, \
            SyncActaeClient(dsn, max_size=1) as client:
        contenders: dict[str, Op] = {
            "psycopg: single calls": raw_single(conn, n),
            "psycopg: batch": raw_batch(conn, n),
            "driver: single calls": driver_single(client, n),
            "driver: batch": driver_batch(client, n),
            "driver: run_tool x N": driver_run_tool(client, n),
            "driver: run_tools": driver_run_tools(client, n),
            "async driver: run_tool x N": async_run_tool(loop, aclient, n, False),
            "async driver: run_tool x N, gathered": async_run_tool(loop, aclient, n, True),
        }
        rounds: dict[str, list[float]] = {name: [] for name in contenders}
        for k in range(rounds_):
            for name, op in contenders.items():
                rounds[name].append(measure(op, n, seconds))
                log(f"  round {k + 1}/{rounds_} {name}: {rounds[name][-1]:,.0f} calls/s")
        commits = {name: commits_per_op(dsn, contenders[name])
                   for name in ("psycopg: single calls", "psycopg: batch", "driver: run_tools",
                                "async driver: run_tool x N, gathered")}
    loop.run_until_complete(aclient.close())
    loop.close()
    log(f"  commits per {n} calls: {commits}")
    median = {name: statistics.median(values) for name, values in rounds.items()}
    return {"n": n, "rounds": rounds, "median": median, "commits": commits,
            "ratios": {"psycopg": median["psycopg: batch"] / median["psycopg: single calls"],
                       "driver": median["driver: batch"] / median["driver: single calls"],
                       "driver run_tools": median["driver: run_tools"]
                       / median["driver: run_tool x N"],
                       "async driver run_tool, gathered":
                       median["async driver: run_tool x N, gathered"]
                       / median["async driver: run_tool x N"]}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    with Server(PORT) as server:
        out = measure_all(server.dsn(), args.n, args.seconds, args.rounds)
    median, rounds, ratios = out["median"], out["rounds"], out["ratios"]
    print(f"\nN = {args.n} parallel tool calls, one client, median of {args.rounds} rounds")
    print("| contender | calls/s | rounds |\n|---|---:|---|")
    for name, value in median.items():
        print(f"| {name} | {value:,.0f} | {', '.join(f'{v:,.0f}' for v in rounds[name])} |")
    for path, ratio in ratios.items():
        print(f"batch / single ({path}): {ratio:.2f}x (target >= 4x: "
              f"{'met' if ratio >= 4 else 'MISSED'})")
    print(f"commits per {args.n} calls: {out['commits']}")
    if args.out:
        args.out.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
