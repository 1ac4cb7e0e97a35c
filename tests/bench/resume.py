"""Resume of a run whose steps are all recorded: the worker's prefetch (one list_completed
read) against step-by-step replay (one claim round trip per step), in the run's own channel
and in a fork that inherits every step.

`python tests/bench/resume.py [--steps 100] [--repeats 7]`

One throwaway server (server.py settings, port 55439). Each sample starts one run, lets one
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
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from server import Server  # noqa: E402

from actae import ActaeClient, Run, SyncActaeClient, ToolContext, Worker  # noqa: E402

PORT = 55439


async def step(ctx: ToolContext) -> dict[str, Any]:
    raise AssertionError(f"step {ctx.params['i']} ran: every step should replay")


def record(dsn: str, channel: str, steps: int) -> None:
    """steps completed executions s0.. in channel, through the API (so clocks are real)."""
    with SyncActaeClient(dsn, max_size=1) as client:
        claims = client.claim_executions(channel, [f"s{i}" for i in range(steps)],
                                         ["step"] * steps, [{"i": i} for i in range(steps)])
        client.complete_executions([c.execution.execution_id for c in claims],
                                   [c.claim_token for c in claims if c.claim_token],
                                   [{"ok": True, "i": i} for i in range(steps)])


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    modes = [(fork, prefetch) for fork in (False, True) for prefetch in (True, False)]
    samples: dict[tuple[bool, bool], list[float]] = {m: [] for m in modes}
    with Server(PORT) as server:
        for k in range(args.repeats):
            for fork, prefetch in modes:
                samples[(fork, prefetch)].append(
                    resume_seconds(server.dsn(), args.steps, prefetch, fork))
            print(f"repeat {k + 1}/{args.repeats} done", flush=True)
    print(f"\nresume of a run with {args.steps} recorded steps, one worker, "
          f"{args.repeats} samples")
    print("| channel | prefetch p50 ms | best | step by step p50 ms | best | speed-up (p50) |")
    print("|---|---:|---:|---:|---:|---:|")
    for fork in (False, True):
        on, off = samples[(fork, True)], samples[(fork, False)]
        print(f"| {'fork (inherited steps)' if fork else 'own'} "
              f"| {statistics.median(on) * 1000:.1f} | {min(on) * 1000:.1f} "
              f"| {statistics.median(off) * 1000:.1f} | {min(off) * 1000:.1f} "
              f"| {statistics.median(off) / statistics.median(on):.1f}x |")


if __name__ == "__main__":
    main()
