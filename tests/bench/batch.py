"""Parallel tool calls: N calls as one claim_executions + one complete_executions (2 commits)
against N single claim_execution + complete_execution pairs (2N commits).

`python tests/bench/batch.py [--n 8] [--seconds 3] [--rounds 3] [--out FILE.json]`

One throwaway server (server.py settings, port 55438), one client, side by side in one run:
each round measures every contender for --seconds, rounds interleaved; the table shows the
median per-call throughput (tool calls made durable per second, claim and completion both
committed) and the ratio batch / single, through psycopg with prepared statements and
through SyncActaeClient.
"""

from __future__ import annotations

import argparse
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

from actae import SyncActaeClient  # noqa: E402

PORT = 55438
PARAMS = {"q": "actae"}
RESULT = {"ok": True}

SINGLE_CLAIM = "select execution_id, claim_token from actae.claim_execution(%s, %s, %s, %s)"
SINGLE_COMPLETE = "select status from actae.complete_execution(%s, %s, %s)"
BATCH_CLAIM = ("select execution_id, claim_token from actae.claim_executions("
               "%s, %s::text[], %s::text[], %s::jsonb[])")
BATCH_COMPLETE = "select status from actae.complete_executions(%s::uuid[], %s::uuid[], %s::jsonb[])"

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
            conn.execute(SINGLE_COMPLETE, (row[0], row[1], result), prepare=True).fetchone()

    return op


def raw_batch(conn: psycopg.Connection[Any], n: int) -> Op:
    keys, params, results = _keys(n), [Jsonb(PARAMS)] * n, [Jsonb(RESULT)] * n

    def op() -> None:
        rows = conn.execute(BATCH_CLAIM, ("bench-batch", keys(), ["search"] * n, params),
                            prepare=True).fetchall()
        assert len(rows) == n and all(r[1] is not None for r in rows)
        done = conn.execute(BATCH_COMPLETE, ([r[0] for r in rows], [r[1] for r in rows],
                                             results), prepare=True).fetchall()
        assert len(done) == n

    return op


def driver_single(client: SyncActaeClient, n: int) -> Op:
    keys = _keys(n)

    def op() -> None:
        for key in keys():
            claim = client.claim_execution("drv-single", key, "search", PARAMS)
            assert claim.claim_token is not None
            client.complete_execution(claim.execution.execution_id, claim.claim_token, RESULT)

    return op


def driver_batch(client: SyncActaeClient, n: int) -> Op:
    keys = _keys(n)

    def op() -> None:
        claims = client.claim_executions("drv-batch", keys(), ["search"] * n, [PARAMS] * n)
        owned = [c.execution for c in claims]
        assert all(e.claim_token is not None for e in owned)
        client.complete_executions([e.execution_id for e in owned],
                                   [e.claim_token for e in owned if e.claim_token],
                                   [RESULT] * n)

    return op


def measure(op: Op, n: int, seconds: float) -> float:
    """Tool calls per second over `seconds` (after one warm-up op)."""
    op()
    calls, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        op()
        calls += n
    return calls / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    with Server(PORT) as server, \
            psycopg.connect(server.dsn(), autocommit=True) as conn, \
            SyncActaeClient(server.dsn(), max_size=1) as client:
        contenders: dict[str, Op] = {
            "psycopg: single calls": raw_single(conn, args.n),
            "psycopg: batch": raw_batch(conn, args.n),
            "driver: single calls": driver_single(client, args.n),
            "driver: batch": driver_batch(client, args.n),
        }
        rounds: dict[str, list[float]] = {name: [] for name in contenders}
        for k in range(args.rounds):
            for name, op in contenders.items():
                rounds[name].append(measure(op, args.n, args.seconds))
                print(f"round {k + 1}/{args.rounds} {name}: {rounds[name][-1]:,.0f} calls/s",
                      flush=True)
    median = {name: statistics.median(values) for name, values in rounds.items()}
    ratios = {
        "psycopg": median["psycopg: batch"] / median["psycopg: single calls"],
        "driver": median["driver: batch"] / median["driver: single calls"],
    }
    print(f"\nN = {args.n} parallel tool calls, one client, median of {args.rounds} rounds")
    print("| contender | calls/s | rounds |\n|---|---:|---|")
    for name, value in median.items():
        print(f"| {name} | {value:,.0f} | {', '.join(f'{v:,.0f}' for v in rounds[name])} |")
    for path, ratio in ratios.items():
        print(f"batch / single ({path}): {ratio:.2f}x (target >= 4x: "
              f"{'met' if ratio >= 4 else 'MISSED'})")
    if args.out:
        args.out.write_text(json.dumps({"n": args.n, "rounds": rounds, "median": median,
                                        "ratios": ratios}, indent=2) + "\n")


if __name__ == "__main__":
    main()
