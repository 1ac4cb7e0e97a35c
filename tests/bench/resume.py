"""Resume of a run whose steps are all recorded: the worker's prefetch (one list_completed
read) against step-by-step replay (one claim round trip per step), in the run's own channel
and in a fork that inherits every step.

`python tests/bench/resume.py [--steps 100] [--repeats 7]`, or the `resume` group of run.py.

One throwaway server (server.py settings, port 55453). Each sample starts one run, lets one
worker (concurrency 1) claim it and replay its steps, and stops the clock when the run is
completed; the table shows the median and the best of --repeats samples, modes interleaved.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from server import Server  # noqa: E402

from actae import ActaeClient, Run, SyncActaeClient, ToolContext, Worker  # noqa: E402

PORT = 55453
MODES = {(False, True): "own channel, prefetch", (False, False): "own channel, step by step",
         (True, True): "fork, prefetch", (True, False): "fork, step by step"}


async def step(ctx: ToolContext) -> dict[str, Any]:
    raise AssertionError(f"step {ctx.params['i']} ran: every step should replay")


def record(dsn: str, channel: str, steps: int) -> None:
    """steps completed executions s0.. in channel, through the API (so clocks are real)."""
    with SyncActaeClient(dsn, max_size=1) as client:
        claims = client.claim_executions(channel, [f"s{i}" for i in range(steps)],
                                         ["step"] * steps, [{"i": i} for i in range(steps)])
        client.complete_executions([c.execution.execution_id for c in claims],
                                   [c.claim_token for c in claims if c.claim_token],
                                   [{"ok": True, "i": i} for i in range(steps)],
                                   channel_id=channel)


def resume_seconds(dsn: str, steps: int, prefetch: bool, fork: bool) -> float:
    tag = uuid.uuid4().hex[:10]
    channel = f"resume-{tag}"
    if fork:
        parent = f"parent-{tag}"
        record(dsn, parent, steps)
        with SyncActaeClient(dsn, max_size=1) as client:
            client.fork_channel(parent, 0, channel)
    else:
        record(dsn, channel, steps)

    async def main() -> float:
        async with ActaeClient(dsn, max_size=4) as client:
            worker = Worker(client, queue=tag, poll_interval=0.01, prefetch=prefetch)

            @worker.agent("steps")
            async def agent(run: Run) -> int:
                for i in range(steps):
                    await run.tool(step, key=f"s{i}", tool_name="step", params={"i": i})
                return steps

            task = asyncio.create_task(worker.run_async())
            await asyncio.sleep(0.2)
            start = time.perf_counter()
            await client.start_run(channel, "steps", {}, tag)
            while (await client.get_run(channel)).status != "completed":
                await asyncio.sleep(0.002)
            seconds = time.perf_counter() - start
            worker.stop()
            await task
            return seconds

    return asyncio.run(main())


def measure_all(dsn: str, steps: int, repeats: int,
                log: Callable[[str], None] = print) -> dict[str, Any]:
    """{mode: {p50_ms, best_ms, samples_ms}} for the MODES, interleaved sample by sample."""
    samples: dict[tuple[bool, bool], list[float]] = {m: [] for m in MODES}
    for k in range(repeats):
        for fork, prefetch in MODES:
            samples[(fork, prefetch)].append(resume_seconds(dsn, steps, prefetch, fork) * 1000)
        log(f"  resume repeat {k + 1}/{repeats} done")
    return {"steps": steps, "repeats": repeats, "modes": {
        name: {"p50_ms": round(statistics.median(samples[m]), 1),
               "best_ms": round(min(samples[m]), 1),
               "samples_ms": [round(v, 1) for v in samples[m]]}
        for m, name in MODES.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    with Server(PORT) as server:
        modes = measure_all(server.dsn(), args.steps, args.repeats)["modes"]
    print(f"\nresume of a run with {args.steps} recorded steps, one worker, "
          f"{args.repeats} samples")
    print("| channel | prefetch p50 ms | best | step by step p50 ms | best | speed-up (p50) |")
    print("|---|---:|---:|---:|---:|---:|")
    for where in ("own channel", "fork"):
        on, off = modes[f"{where}, prefetch"], modes[f"{where}, step by step"]
        print(f"| {where} | {on['p50_ms']} | {on['best_ms']} | {off['p50_ms']} "
              f"| {off['best_ms']} | {off['p50_ms'] / on['p50_ms']:.1f}x |")


if __name__ == "__main__":
    main()
