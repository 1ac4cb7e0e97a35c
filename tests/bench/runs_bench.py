"""Runs benchmark (the ``runs`` group of `make bench`; also `python runs_bench.py [--quick]`).

On one throwaway server (port 55449), side by side in one run:
  * end-to-end runs/s of a 5-step agent, new runs and resumption of runs whose 5 steps are
    already recorded, at 1 and 8 concurrent workers: Actae's Worker, Absurd (absurd-sdk,
    schema by absurdctl), DBOS (queue + workflow of 5 steps), pgtask (task of 5 steps; its
    resume parks each task on a signal after its 5 steps, untimed, then times the signals to
    the last completion). 3 rounds, the contenders taking turns (DBOS, far behind and
    slow at x1: one round); the median round is reported.
  * resume time of one 100-step run: Actae with the prefetch (one read) vs step by step.
  * claim_run latency (p50 / p99 of the claim_run round trip) with 0 / 100 000 / 1 000 000
    runs queued in the same queue.
Writes docs/bench/runs.json and docs/bench/runs.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server import PG_BIN, REPO, Server, machine  # noqa: E402

from actae import ActaeClient, Run, ToolContext, Worker  # noqa: E402

PORT = 55449
STEPS = 5
ROUNDS = 3  # rounds of every contender in turn (DBOS: one); each case shows the median
# Runs per round: at 8 workers 300 runs took 0.3 s, of which a worker's start (its new
# backends loading their caches, about 6 ms each) and the 10 ms completion poll were a sixth.
RUNS = 1000
OUT_JSON = REPO / "docs" / "bench" / "runs.json"
OUT_MD = REPO / "docs" / "bench" / "runs.md"


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


async def step(ctx: ToolContext) -> dict[str, Any]:
    return {"ok": True, "i": ctx.params["i"]}


def _worker(client: ActaeClient, queue: str, workers: int, prefetch: bool = True,
            steps: int = STEPS) -> Worker:
    worker = Worker(client, queue=queue, concurrency=workers, poll_interval=0.05,
                    prefetch=prefetch)

    @worker.agent("five")
    async def five(run: Run) -> dict[str, Any]:
        for i in range(steps):
            await run.tool(step, key=f"s{i}", params={"i": i})
        return {"ok": True}

    return worker


def _record_steps(dsn: str, channels: list[str], steps: int) -> None:
    """The executions a finished attempt left: steps completed results per channel."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(
            "insert into actae.channels (channel_id) select unnest(%s::text[])"
            " on conflict do nothing", (channels,))
        conn.execute("""
            insert into actae.executions (channel_id, key_name, execution_id, tool_name, params,
                fingerprint, status, claim_token, fence, attempt, lease_seconds,
                lease_expires_at, result, completed_clock, created_at, claimed_at, finished_at)
            select c, 's' || i, gen_random_uuid(), 'step', jsonb_build_object('i', i),
                encode(sha256(convert_to(jsonb_build_object('i', i)::text, 'UTF8')), 'hex'),
                'completed', gen_random_uuid(), 1, 1, 60, now(),
                jsonb_build_object('ok', true, 'i', i), 0, now(), now(), now()
            from unnest(%s::text[]) as c, generate_series(0, %s) as i""",
            (channels, steps - 1))


def actae_runs(dsn: str, mode: str, workers: int, runs: int, prefetch: bool = True,
               steps: int = STEPS) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        queue = "r" + uuid.uuid4().hex[:10]
        channels = [f"{queue}-{n}" for n in range(runs)]
        if mode == "resume":
            _record_steps(dsn, channels, steps)
        # The worker's connections are open before the timer, as Absurd's one connection
        # is: min_size opens them in the client's open().
        async with ActaeClient(dsn, max_size=workers + 4, min_size=workers + 1) as client, \
                await psycopg.AsyncConnection.connect(dsn, autocommit=True) as watch:
            worker = _worker(client, queue, workers, prefetch, steps)
            if mode == "resume":
                # Queued before the timer, as the peers' resumed tasks are: timed from the
                # worker's start to the last completion.
                for n, channel in enumerate(channels):
                    await client.start_run(channel, "five", {"n": n}, queue)
                task = asyncio.create_task(worker.run_async())
                t0 = time.perf_counter()
            else:
                task = asyncio.create_task(worker.run_async())
                await asyncio.sleep(0.2)  # listening
                t0 = time.perf_counter()
                for n, channel in enumerate(channels):
                    await client.start_run(channel, "five", {"n": n}, queue)
            # The last completion is seen as for Absurd: a count on its own connection (not a
            # listing parsed in the worker's own process).
            while True:
                row = await (await watch.execute(
                    "select count(*) from actae.runs where queue = %s and status = 'completed'",
                    (queue,))).fetchone()
                if row is not None and row[0] >= runs:
                    break
                await asyncio.sleep(0.01)
            seconds = time.perf_counter() - t0
            worker.stop()
            await task
        return {"runs": runs, "seconds": seconds}

    return asyncio.run(main())


def peer(name: str, mode: str, workers: int, runs: int, url: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("runs_peers.py")), name, mode,
         str(workers), str(runs), url],
        capture_output=True, text=True, timeout=1800, check=False,
        env={**os.environ, "PATH": f"{PG_BIN}:{os.environ.get('PATH', '')}"})
    lines = done.stdout.strip().splitlines()
    try:
        result: dict[str, Any] = json.loads(lines[-1])
    except (IndexError, ValueError):
        return {"error": (done.stderr or done.stdout).strip().splitlines()[-1:]}
    if done.returncode != 0:
        # The measurement was printed, then the process died on its way out (seen with
        # pgtask's worker at interpreter shutdown): keep the number, say so.
        result["exit"] = f"{done.returncode}: " + " ".join(
            done.stderr.strip().splitlines()[:1])[:120]
    return result


def claim_latency(server: Server, queued: int, samples: int) -> dict[str, Any]:
    """claim_run round trips (each claimed run then completed, untimed) with `queued` runs
    due in the same queue."""
    dsn = server.dsn()
    queue = "lat" + uuid.uuid4().hex[:8]
    with psycopg.connect(dsn, autocommit=True) as conn:
        if queued:
            conn.execute("""
                insert into actae.runs (channel_id, agent, queue, input, status, due_at,
                    wake_reason, max_attempts, created_at)
                select %s || '-' || g, 'five', %s, '{}', 'queued',
                    clock_timestamp() - interval '1 hour' + g * interval '1 microsecond',
                    'start', 5, clock_timestamp()
                from generate_series(1, %s) as g""", (queue, queue, queued))
            conn.execute("vacuum analyze actae.runs")
        else:
            conn.execute(
                "insert into actae.channels (channel_id) select %s || '-s-' || g"
                " from generate_series(1, %s) as g", (queue, samples))
            for g in range(1, samples + 1):
                conn.execute("select actae.start_run(%s, 'five', '{}', %s)",
                             (f"{queue}-s-{g}", queue))
        server.checkpoint()
        times = []
        for _ in range(samples):
            t0 = time.perf_counter()
            row = conn.execute("select channel_id, claim_token from actae.claim_run(%s, 'w')",
                               (queue,)).fetchone()
            times.append(time.perf_counter() - t0)
            assert row is not None
            conn.execute("select actae.complete_run(%s, %s, 'true')", row)
    times.sort()
    return {"queued": queued, "samples": samples,
            "p50_ms": round(statistics.median(times) * 1000, 3),
            "p99_ms": round(times[int(len(times) * 0.99) - 1] * 1000, 3)}


def bench_runs(quick: bool = False) -> dict[str, Any]:
    runs = 10 if quick else RUNS
    out: dict[str, Any] = {"runs": runs, "steps": STEPS, "throughput": {}, "latency": [],
                           "prefetch": {}, "rounds": 1 if quick else ROUNDS}
    with Server(PORT) as server:
        with psycopg.connect(server.dsn("postgres"), autocommit=True) as conn:
            conn.execute("create database absurd")
            conn.execute("create database dbos_sys")
            conn.execute("create database pgtask")
        absurd_url = server.url("absurd")
        subprocess.run(["absurdctl", "init", "-d", absurd_url], check=True,
                       capture_output=True,
                       env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{PG_BIN}:"
                                                 f"{os.environ.get('PATH', '')}"})
        contenders: dict[str, Callable[[str, int], dict[str, Any]]] = {
            "actae": lambda mode, workers: actae_runs(server.dsn(), mode, workers, runs),
            "absurd": lambda mode, workers: peer("absurd", mode, workers, runs, absurd_url),
            "dbos": lambda mode, workers: peer("dbos", mode, workers, runs,
                                               server.url("dbos_sys")),
            "pgtask": lambda mode, workers: peer("pgtask", mode, workers, runs,
                                                 server.url("pgtask")),
        }
        for mode in ("new", "resume"):
            for workers in (1,) if quick else (1, 8):
                samples: dict[str, list[dict[str, Any]]] = {name: [] for name in contenders}
                for r in range(out["rounds"]):
                    for name, measure in contenders.items():
                        if name == "dbos" and r > 0:
                            continue  # 10-40x behind, and 20 s a round at x1: one round
                        log(f"runs {mode} x{workers}: {name} (round {r + 1})")
                        samples[name].append(measure(mode, workers))
                row = {name: _median(values) for name, values in samples.items()}
                out["throughput"][f"{mode} x{workers}"] = row
                log(f"  {row}")
        for prefetch in (True, False):
            times = [actae_runs(server.dsn(), "resume", 1, 1, prefetch, steps=100)["seconds"]
                     for _ in range(1 if quick else 5)]
            out["prefetch"]["on" if prefetch else "off"] = round(min(times) * 1000, 1)
        log(f"prefetch: {out['prefetch']}")
        for queued in (0, 10_000) if quick else (0, 100_000, 1_000_000):
            out["latency"].append(claim_latency(server, queued, 30 if quick else 1000))
            log(f"  claim latency {out['latency'][-1]}")
    out["meta"] = {"machine": machine(), "date": time.strftime("%Y-%m-%d %H:%M UTC",
                                                                time.gmtime()), "quick": quick}
    return out


def _median(values: list[dict[str, Any]]) -> dict[str, Any]:
    """The median round by runs/s (with every round's runs/s), or the first error."""
    done = [v for v in values if "seconds" in v]
    if not done:
        return values[0]
    for value in done:
        value["runs_per_s"] = round(value["runs"] / value["seconds"], 1)
    ordered = sorted(done, key=lambda v: v["runs_per_s"])
    return {**ordered[len(ordered) // 2], "rounds": [v["runs_per_s"] for v in done]}


def _cell(row: dict[str, Any], name: str) -> str:
    value = row.get(name, {})
    if "runs_per_s" not in value:
        return "error: " + " ".join(value.get("error", ["?"]))[:80]
    ratio = row["actae"].get("runs_per_s", 0) / value["runs_per_s"] if value["runs_per_s"] else 0
    return f"{value['runs_per_s']}" + ("" if name == "actae" else f" (Actae ×{ratio:.2f})")


def write(out: dict[str, Any], json_path: Path = OUT_JSON, md_path: Path = OUT_MD) -> None:
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(out, indent=1) + "\n")
    meta = out["meta"]
    lines = [
        "# Runs benchmark", "",
        f"Generated by `tests/bench/runs_bench.py` on {meta['date']}"
        f" ({'quick' if meta['quick'] else 'full'} run). Machine: {meta['machine']}. One"
        " throwaway PostgreSQL server for every contender, durable commits. The machine was"
        " shared with other jobs while this ran: read the ratios, not the absolute numbers.",
        "",
        f"## End-to-end runs per second ({out['runs']} runs of a {out['steps']}-step agent)",
        "",
        "new = start the runs one by one while the worker runs, until the last completes;"
        " resume = the runs are queued (Absurd: spawned) and their 5 steps already recorded"
        " before the timer; timed from the worker's start until the last completes, each"
        " step a replay. Actae's and Absurd's last completion is seen by a count query every"
        " 10 ms on its own connection (DBOS waits on its workflow handles, pgtask polls each"
        " task's result). Actae's client opens its connections before the timer (min_size),"
        " as Absurd's one connection is opened before its timer."
        f" Each cell is the median of {out.get('rounds', 1)} round(s), the contenders taking"
        " turns round by"
        " round (DBOS: one round); the rounds are listed below the table.",
        "",
        "| case | Actae | Absurd | DBOS | pgtask |", "|---|---:|---:|---:|---:|",
    ]
    for case, row in out["throughput"].items():
        lines.append(f"| {case} | {_cell(row, 'actae')} | {_cell(row, 'absurd')} |"
                     f" {_cell(row, 'dbos')} | {_cell(row, 'pgtask')} |")
    lines += [""] + [
        f"- {case}: " + "; ".join(f"{name} {', '.join(str(x) for x in row[name]['rounds'])}"
                                 for name in row if row[name].get("rounds"))
        for case, row in out["throughput"].items()]
    lines += ["", "pgtask's resume: each task ran its 5 steps and parked on a signal (untimed);"
              " timed from sending the signals to the last completion.", "",
              "## Resume of one 100-step run (best of 5)", "",
              f"- with the prefetch (one read of the completed executions):"
              f" {out['prefetch'].get('on')} ms",
              f"- step by step (one claim round trip per replayed step):"
              f" {out['prefetch'].get('off')} ms", "",
              "## claim_run latency (one connection; each claimed run is then completed,"
              " untimed)", "",
              "| queued runs | p50 ms | p99 ms |", "|---:|---:|---:|"]
    for row in out["latency"]:
        lines.append(f"| {row['queued']:,} | {row['p50_ms']} | {row['p99_ms']} |")
    md_path.write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    quick = parser.parse_args().quick
    out = bench_runs(quick)
    # A quick run never overwrites the committed report.
    folder = REPO / "tests" / "bench" / ".quick"
    md_path = folder / "runs.md" if quick else OUT_MD
    write(out, folder / "runs.json" if quick else OUT_JSON, md_path)
    log(f"wrote {md_path}")


if __name__ == "__main__":
    main()
