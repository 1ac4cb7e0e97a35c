"""Closed-loop load generator: N worker processes, each with its own connection(s).

Every Python contender runs through the same harness: the workers are spawned, each builds its
operation (connects, prepares, launches DBOS, ...), all wait on one start signal, run the
operation back to back for the warm-up, then record every latency until the window ends.
Processes (not threads) so the GIL of one worker never slows another; on a 2-core machine
the Python side competes with the server for CPU exactly as a real agent fleet would.

An operation returns None (one call, timed here) or, when it performs several calls itself
(DBOS steps inside one workflow), a list of (epoch second the call ended, seconds it took);
only calls that start and end inside the measured window count.
"""

from __future__ import annotations

import importlib
import multiprocessing as mp
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Op = Callable[[], list[tuple[float, float]] | None]


@dataclass
class Result:
    name: str
    concurrency: int
    ops: int
    seconds: float
    latencies_ms: list[float] = field(repr=False)

    @property
    def throughput(self) -> float:
        return self.ops / self.seconds

    def pct(self, q: float) -> float:
        if not self.latencies_ms:
            return float("nan")
        ordered = sorted(self.latencies_ms)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    def summary(self) -> dict[str, Any]:
        return {
            "name": self.name, "concurrency": self.concurrency, "ops": self.ops,
            "seconds": round(self.seconds, 3), "throughput": round(self.throughput, 1),
            "p50_ms": round(self.pct(0.50), 3), "p99_ms": round(self.pct(0.99), 3),
        }


def _worker(
    factory: str, args: dict[str, Any], index: int, ready: Any, go: Any, start: Any,
    warmup: float, duration: float, out: Any,
) -> None:
    module, _, name = factory.rpartition(":")
    make: Callable[[dict[str, Any], int], tuple[Op, Callable[[], None]]] = getattr(
        importlib.import_module(module), name
    )
    op, close = make(args, index)
    ready.put(index)
    go.wait()
    t_measure = start.value + warmup
    t_end = t_measure + duration
    latencies: list[float] = []
    while True:
        began = time.time()
        t0 = time.perf_counter()
        inner = op()
        t1 = time.perf_counter()
        ended = time.time()
        if inner is None:
            if began >= t_measure and ended <= t_end:
                latencies.append((t1 - t0) * 1000.0)
        else:
            latencies.extend(s * 1000.0 for at, s in inner if t_measure <= at <= t_end)
        if ended > t_end:
            break
    count = len(latencies)
    close()
    out.put((count, latencies))


def run(
    name: str, factory: str, args: dict[str, Any], concurrency: int, warmup: float,
    duration: float,
) -> Result:
    """Run `factory(args, index) -> (op, close)` in `concurrency` processes."""
    ctx = mp.get_context("spawn")
    ready, out = ctx.Queue(), ctx.Queue()
    go = ctx.Event()
    start = ctx.Value("d", 0.0)
    procs = [
        ctx.Process(target=_worker, args=(factory, args, i, ready, go, start, warmup,
                                          duration, out))
        for i in range(concurrency)
    ]
    for p in procs:
        p.start()
    for _ in procs:
        ready.get(timeout=180)
    start.value = time.time() + 0.2
    go.set()
    ops = 0
    latencies: list[float] = []
    for _ in procs:
        count, lats = out.get(timeout=warmup + duration + 180)
        ops += count
        latencies.extend(lats)
    for p in procs:
        p.join(timeout=60)
        if p.exitcode != 0:
            raise RuntimeError(f"{name}: a worker exited with {p.exitcode}")
    return Result(name, concurrency, ops, duration, latencies)
