"""AsyncActaeSaver vs LangGraph's AsyncPostgresSaver on one server, interleaved.

Usage: tests/bench/.env/bin/python tests/bench/langgraph_saver.py [--quick]
(also `make bench`, group "langgraph"). Writes docs/bench/langgraph_saver.{json,md}.

Rows, each measured in alternating rounds (Actae, Postgres, Actae, ... with the starting
contender alternating) on one throwaway server with the settings of every other group:
* step: aput + aput_writes of one LangGraph step, 1 KB and 64 KB states (a message list
  stored through the serde, as a real MessagesState is), 1 / 8 / 32 concurrent threads,
  each thread an asyncio task on a shared pool of that many connections. Each
  AsyncPostgresSaver task gets its own saver instance on the shared pool: one shared
  instance would serialise every call behind its asyncio.Lock.
* aget_tuple of the latest checkpoint of a 100-checkpoint thread (sequential calls).
* alist of a whole 1 000-checkpoint thread (1 KB states).
* a real 10-node StateGraph run end to end (ainvoke on a new thread each time).
* client statements per step (pg_stat_statements); each is one transaction.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import operator
import sys
import time
import uuid
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

import psycopg  # noqa: E402
from langgraph.checkpoint.base.id import uuid6  # noqa: E402
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402
from psycopg.rows import dict_row  # noqa: E402
from psycopg_pool import AsyncConnectionPool  # noqa: E402
from server import REPO, Server, machine  # noqa: E402

from actae.client import ActaeClient  # noqa: E402
from actae.langgraph import AsyncActaeSaver  # noqa: E402

PORT = 55449
OUT = REPO / "docs" / "bench"
CONTENDERS = ("AsyncActaeSaver", "AsyncPostgresSaver")
Factory = Callable[[], Coroutine[Any, Any, Any]]


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def _messages(size: int) -> list[dict[str, str]]:
    per = 200
    return [{"role": "user" if i % 2 else "assistant", "content": "x" * per}
            for i in range(max(1, size // (per + 30)))]


class Contender:
    """One saver kind on a shared pool: make(n) gives the saver a task uses."""

    def __init__(self, name: str, dsn: str, size: int) -> None:
        self.name, self.dsn, self.size = name, dsn, size
        self.pool: AsyncConnectionPool | None = None
        self.client: ActaeClient | None = None

    async def open(self, connections: int) -> None:
        kwargs: dict[str, Any] = {"autocommit": True}
        if self.name == "AsyncPostgresSaver":
            kwargs.update(prepare_threshold=0, row_factory=dict_row)
        self.pool = AsyncConnectionPool(self.dsn, min_size=connections, max_size=connections,
                                        kwargs=kwargs, open=False)
        await self.pool.open(wait=True)
        self.client = ActaeClient(pool=self.pool)

    async def close(self) -> None:
        assert self.pool is not None
        await self.pool.close()

    def saver(self) -> Any:
        assert self.pool is not None and self.client is not None
        if self.name == "AsyncActaeSaver":
            return AsyncActaeSaver(self.client)
        return AsyncPostgresSaver(self.pool)


async def _step(saver: Any, config: dict[str, Any], versions: dict[str, Any], step: int,
                messages: list[dict[str, str]]) -> dict[str, Any]:
    for channel in ("messages", "count"):
        versions[channel] = saver.get_next_version(versions.get(channel), None)
    checkpoint = {
        "v": 4, "id": str(uuid6(clock_seq=step)), "ts": datetime.now(UTC).isoformat(),
        "channel_values": {"messages": messages, "count": step},
        "channel_versions": dict(versions),
        "versions_seen": {"agent": dict(versions)}, "updated_channels": ["messages", "count"],
    }
    metadata = {"source": "loop", "step": step, "parents": {}}
    stored = await saver.aput(config, checkpoint, metadata, dict(versions))
    await saver.aput_writes(stored, [("messages", [{"role": "assistant", "content": "ok"}]),
                                     ("count", step + 1)], str(uuid.uuid4()))
    return stored


async def _thread_steps(contender: Contender, deadline: float, latencies: list[float]) -> int:
    saver = contender.saver()
    config: dict[str, Any] = {"configurable": {"thread_id": f"bench-{uuid.uuid4()}",
                                               "checkpoint_ns": ""}}
    versions: dict[str, Any] = {}
    messages = _messages(contender.size)
    steps = 0
    while time.perf_counter() < deadline:
        t0 = time.perf_counter()
        config = await _step(saver, config, versions, steps, messages)
        latencies.append(time.perf_counter() - t0)
        steps += 1
    return steps


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


async def _steps_round(contender: Contender, threads: int, seconds: float) -> dict[str, float]:
    latencies: list[float] = []
    t0 = time.perf_counter()
    counts = await asyncio.gather(*[
        _thread_steps(contender, t0 + seconds, latencies) for _ in range(threads)])
    elapsed = time.perf_counter() - t0
    return {"steps_per_s": sum(counts) / elapsed, "p50_ms": _pct(latencies, 0.5),
            "p99_ms": _pct(latencies, 0.99)}


def _median(rounds: list[dict[str, float]]) -> dict[str, Any]:
    ordered = sorted(rounds, key=lambda r: r["steps_per_s"])
    out: dict[str, Any] = dict(ordered[len(ordered) // 2])
    out["rounds"] = [round(r["steps_per_s"], 1) for r in rounds]
    return out


async def bench_steps(dsn: str, rounds: int, seconds: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for size in (1024, 65536):
        for threads in (1, 8, 32):
            results: dict[str, list[dict[str, float]]] = {n: [] for n in CONTENDERS}
            contenders = {n: Contender(n, dsn, size) for n in CONTENDERS}
            for c in contenders.values():
                await c.open(threads)
            await asyncio.gather(*[_steps_round(c, threads, 0.5) for c in contenders.values()])
            for r in range(rounds):
                order = CONTENDERS if r % 2 == 0 else CONTENDERS[::-1]
                for name in order:
                    results[name].append(await _steps_round(contenders[name], threads, seconds))
            for c in contenders.values():
                await c.close()
            row = {name: _median(results[name]) for name in CONTENDERS}
            out[f"{size // 1024} KB, {threads} threads"] = row
            log(f"  step {size // 1024} KB x{threads}: " + ", ".join(
                f"{n} {row[n]['steps_per_s']:.0f}/s p50 {row[n]['p50_ms']:.2f} ms"
                for n in CONTENDERS))
    return out


async def _filled_thread(saver: Any, checkpoints: int, size: int) -> dict[str, Any]:
    config: dict[str, Any] = {"configurable": {"thread_id": f"bench-{uuid.uuid4()}",
                                               "checkpoint_ns": ""}}
    versions: dict[str, Any] = {}
    messages = _messages(size)
    for step in range(checkpoints):
        config = await _step(saver, config, versions, step, messages)
    return {"configurable": {"thread_id": config["configurable"]["thread_id"],
                             "checkpoint_ns": ""}}


async def _timed_rounds(calls: dict[str, Factory], rounds: int, repeat: int) -> dict[str, Any]:
    times: dict[str, list[float]] = {n: [] for n in calls}
    for r in range(rounds):
        order = list(calls) if r % 2 == 0 else list(calls)[::-1]
        for name in order:
            for _ in range(repeat):
                t0 = time.perf_counter()
                await calls[name]()
                times[name].append(time.perf_counter() - t0)
    return {n: {"p50_ms": _pct(v, 0.5), "p99_ms": _pct(v, 0.99), "n": len(v)}
            for n, v in times.items()}


async def bench_reads(dsn: str, rounds: int, quick: bool) -> dict[str, Any]:
    contenders = {n: Contender(n, dsn, 1024) for n in CONTENDERS}
    for c in contenders.values():
        await c.open(2)
    savers = {n: c.saver() for n, c in contenders.items()}
    latest = {n: await _filled_thread(s, 100, 1024) for n, s in savers.items()}
    long_checkpoints = 200 if quick else 1000
    long = {n: await _filled_thread(s, long_checkpoints, 1024) for n, s in savers.items()}

    def get(name: str) -> Factory:
        return lambda: savers[name].aget_tuple(latest[name])

    def listing(name: str) -> Factory:
        async def run() -> None:
            count = 0
            async for _ in savers[name].alist(long[name]):
                count += 1
            assert count == long_checkpoints
        return run

    out = {
        "aget_tuple latest": await _timed_rounds({n: get(n) for n in CONTENDERS}, rounds,
                                                 50 if quick else 300),
        f"alist {long_checkpoints} checkpoints": await _timed_rounds(
            {n: listing(n) for n in CONTENDERS}, rounds, 2 if quick else 4),
    }
    for c in contenders.values():
        await c.close()
    for row, values in out.items():
        log(f"  {row}: " + ", ".join(f"{n} p50 {v['p50_ms']:.2f} ms" for n, v in values.items()))
    return out


class _State(TypedDict):
    items: Annotated[list[str], operator.add]
    n: int


def _ten_node_graph() -> Any:
    builder = StateGraph(_State)
    names = [f"node_{i}" for i in range(10)]
    for name in names:
        builder.add_node(name, lambda s, name=name: {"items": [name], "n": s["n"] + 1})
    builder.add_edge(START, names[0])
    for a, b in zip(names, names[1:], strict=False):
        builder.add_edge(a, b)
    builder.add_edge(names[-1], END)
    return builder


async def bench_graph(dsn: str, rounds: int, quick: bool) -> dict[str, Any]:
    contenders = {n: Contender(n, dsn, 1024) for n in CONTENDERS}
    for c in contenders.values():
        await c.open(2)
    builder = _ten_node_graph()
    graphs = {n: builder.compile(checkpointer=c.saver()) for n, c in contenders.items()}

    def run(name: str) -> Factory:
        async def once() -> None:
            config = {"configurable": {"thread_id": f"bench-{uuid.uuid4()}"}}
            state = await graphs[name].ainvoke({"items": [], "n": 0}, config)
            assert state["n"] == 10
        return once

    out = await _timed_rounds({n: run(n) for n in CONTENDERS}, rounds, 5 if quick else 20)
    for c in contenders.values():
        await c.close()
    log("  10-node graph: " + ", ".join(f"{n} p50 {v['p50_ms']:.1f} ms" for n, v in out.items()))
    return out


async def bench_round_trips(dsn: str) -> dict[str, Any]:
    """Statements the client sends per step (pg_stat_statements, top level), 1 KB, c=1.
    Both savers run in autocommit, so each statement is also one transaction (a commit)."""
    out: dict[str, Any] = {}
    steps = 200
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute("create extension if not exists pg_stat_statements")
        for name in CONTENDERS:
            contender = Contender(name, dsn, 1024)
            await contender.open(1)
            saver = contender.saver()
            await _filled_thread(saver, 2, 1024)  # connection warm
            admin.execute("select pg_stat_statements_reset()")
            await _filled_thread(saver, steps, 1024)
            await contender.close()
            row = admin.execute(
                "select coalesce(sum(calls), 0) from pg_stat_statements"
                " where dbid = (select oid from pg_database where datname = current_database())"
                " and query !~* 'pg_stat'").fetchone()
            assert row is not None
            out[name] = {"statements_per_step": round(float(row[0]) / steps, 2)}
    log(f"  per step: {out}")
    return out


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x" if b else "-"


def markdown(results: dict[str, Any]) -> str:
    meta = results["meta"]
    lines = [
        "# LangGraph checkpointers: AsyncActaeSaver vs AsyncPostgresSaver",
        "",
        f"{meta['date']}, {meta['machine']['cpus']} CPUs ({meta['machine']['cpu']}), "
        f"{meta['machine']['postgres']}; one server, fsync and synchronous_commit on; "
        f"{meta['rounds']} interleaved rounds of {meta['seconds']} s per step row (median "
        "round shown). Taken on a shared machine under load from other jobs: compare the "
        "two columns of a row, not rows across runs.",
        "",
        "| row | AsyncActaeSaver | AsyncPostgresSaver | Actae / Postgres |",
        "|---|---|---|---|",
    ]
    for row, v in results["steps"].items():
        a, p = v["AsyncActaeSaver"], v["AsyncPostgresSaver"]
        lines.append(
            f"| aput + aput_writes per step, {row} | {a['steps_per_s']:.0f} steps/s "
            f"(p50 {a['p50_ms']:.2f} ms) | {p['steps_per_s']:.0f} steps/s "
            f"(p50 {p['p50_ms']:.2f} ms) | {_ratio(a['steps_per_s'], p['steps_per_s'])} "
            "throughput |")
    for group in ("reads", "graph"):
        for row, v in (results[group].items() if group == "reads"
                       else [("10-node StateGraph, ainvoke", results[group])]):
            a, p = v["AsyncActaeSaver"], v["AsyncPostgresSaver"]
            lines.append(
                f"| {row} | p50 {a['p50_ms']:.2f} ms | p50 {p['p50_ms']:.2f} ms | "
                f"{_ratio(p['p50_ms'], a['p50_ms'])} speed (Postgres time / Actae time) |")
    rt = results["round_trips"]
    a, p = rt["AsyncActaeSaver"], rt["AsyncPostgresSaver"]
    lines += [
        f"| client statements per step (1 KB, 1 thread) | {a['statements_per_step']} | "
        f"{p['statements_per_step']} | |",
        "",
        "Ratios above 1.00x favour Actae. AsyncActaeSaver sends one statement per call, so a "
        "step is 2 round trips (put, put_writes) and 2 transactions; AsyncPostgresSaver "
        "pipelines its statements (also 2 round trips per step), each autocommitting as its "
        "own transaction (blob rows, checkpoint row, one per write).",
        "",
    ]
    return "\n".join(lines)


async def bench(quick: bool) -> dict[str, Any]:
    rounds, seconds = (1, 0.75) if quick else (3, 3.0)
    with Server(PORT, {"shared_preload_libraries": "pg_stat_statements"}) as server:
        dsn = server.dsn()
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            await AsyncPostgresSaver(conn).setup()
        results: dict[str, Any] = {"steps": await bench_steps(dsn, rounds, seconds)}
        server.checkpoint()
        results["reads"] = await bench_reads(dsn, rounds, quick)
        results["graph"] = await bench_graph(dsn, rounds, quick)
        results["round_trips"] = await bench_round_trips(dsn)
    results["meta"] = {"machine": machine(), "rounds": rounds, "seconds": seconds,
                       "quick": quick,
                       "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    return results


def run(quick: bool = False, out: Path | None = None) -> dict[str, Any]:
    """Measure, write langgraph_saver.{json,md} into `out` (docs/bench/ by default), return
    the results."""
    results = asyncio.run(bench(quick))
    out = out or OUT
    out.mkdir(parents=True, exist_ok=True)
    (out / "langgraph_saver.json").write_text(json.dumps(results, indent=1) + "\n")
    (out / "langgraph_saver.md").write_text(markdown(results))
    print(markdown(results))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="short smoke run")
    run(parser.parse_args().quick)


if __name__ == "__main__":
    main()
