"""What the Citus queue design of claim_run costs: claim_run and complete_run with the
functions of an earlier commit ("before": one SELECT ... FOR UPDATE SKIP LOCKED) and of the
working tree ("after": a page of due runs read without a lock, then a lock by channel),
rounds interleaved on the same database in the same run.

    .venv/bin/python -m actae.pg run -- .venv/bin/python tests/citus/runs_bench.py
    ACTAE_DSN=<coordinator> .venv/bin/python tests/citus/runs_bench.py --after-only

Each round seeds --runs queued runs in a queue of their own, then 1 and 4 client threads
(own connections) claim and complete until the queue is empty. Prints markdown: median
microseconds per claim_run and complete_run (1 thread) and claim+complete pairs per second.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import threading
import time
import uuid
from pathlib import Path

import psycopg

REPO = Path(__file__).resolve().parents[2]
CLAIM = "select channel_id, claim_token from actae.claim_run(%s, %s, null, 60)"
COMPLETE = "select status from actae.complete_run(%s, %s, '1'::jsonb)"


def load(dsn: str, sql: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(sql.encode())  # type: ignore[arg-type]


def seed(dsn: str, queue: str, runs: int) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            "select actae.start_run(%s || '-' || n, 'bench', '{}'::jsonb, %s)"
            " from generate_series(1, %s) as n", (queue, queue, runs))


def drain(dsn: str, queue: str, threads: int) -> tuple[float, list[float], list[float]]:
    """(pairs per second, claim µs, complete µs) until the queue has nothing due."""
    claims: list[float] = []
    completes: list[float] = []
    done = [0] * threads

    def loop(slot: int) -> None:
        with psycopg.connect(dsn, autocommit=True) as conn:
            while True:
                t0 = time.perf_counter()
                row = conn.execute(CLAIM, (queue, f"w{slot}")).fetchone()
                t1 = time.perf_counter()
                if row is None:
                    return
                status = conn.execute(COMPLETE, row).fetchone()
                t2 = time.perf_counter()
                assert status == ("completed",)
                claims.append((t1 - t0) * 1e6)
                completes.append((t2 - t1) * 1e6)
                done[slot] += 1

    started = time.perf_counter()
    workers = [threading.Thread(target=loop, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return sum(done) / (time.perf_counter() - started), claims, completes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", default="0c11ced",
                        help="commit whose sql/40_runs.sql is 'before'")
    parser.add_argument("--after-only", action="store_true")
    args = parser.parse_args()
    dsn = os.environ["ACTAE_DSN"]
    after = (REPO / "sql" / "40_runs.sql").read_text(encoding="utf-8")
    variants = {"after": after}
    if not args.after_only:
        variants = {"before": subprocess.run(
            ["git", "show", f"{args.before}:sql/40_runs.sql"], check=True, cwd=REPO,
            capture_output=True, text=True).stdout, "after": after}
    figures: dict[tuple[str, int], list[tuple[float, float, float]]] = {}
    try:
        for _ in range(args.rounds):
            for name, sql in variants.items():
                load(dsn, sql)
                for threads in (1, 4):
                    queue = f"bench-{uuid.uuid4().hex[:8]}"
                    seed(dsn, queue, args.runs)
                    rate, claims, completes = drain(dsn, queue, threads)
                    figures.setdefault((name, threads), []).append(
                        (rate, statistics.median(claims), statistics.median(completes)))
    finally:
        load(dsn, after)
    print("| functions | threads | claim_run µs (median) | complete_run µs (median) |"
          " pairs/s |")
    print("|---|---|---|---|---|")
    for (name, threads), rows in sorted(figures.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        print(f"| {name} | {threads} | {statistics.median(r[1] for r in rows):.0f} |"
              f" {statistics.median(r[2] for r in rows):.0f} |"
              f" {statistics.median(r[0] for r in rows):.0f} |")


if __name__ == "__main__":
    main()
