"""The refund desk as a run: an agent that finishes itself across worker crashes, a human
approval and a durable cool-off sleep.

    ACTAE_DSN=... python python/examples/refund_desk_worker.py demo     # the scripted story
    ACTAE_DSN=... actae worker refund_desk_worker:worker                 # a worker process
    actae run start refund-o-7 refund --input '{"order_id": "o-7"}'      # a refund request
    actae event send refund-o-7 approval --payload '{"approved": true}'  # a person approves

The provider is the fake payments API actae.fakes.FakeProvider (its books live in
PostgreSQL, so they survive a SIGKILL); it deduplicates on the idempotency key Actae derives for the
refund, so the refund happens once however often the worker dies.

The demo: start a worker process, start a run for a large order (it needs approval), watch
the run park waiting, SIGKILL the worker, approve from the command line (`actae event
send`) while no worker runs, start a new worker, and watch the run sleep its cool-off and
finish: one refund at the provider.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

from actae import Run, SyncActaeClient, ToolContext, Worker
from actae.fakes import FakeProvider

DSN = os.environ.get("ACTAE_DSN", "")
COOL_OFF = float(os.environ.get("REFUND_COOL_OFF_SECONDS", "2"))
NAMESPACE = os.environ.get("REFUND_PROVIDER_NAMESPACE", "refund-desk/")

worker = Worker(DSN or "dbname=actae", queue=os.environ.get("REFUND_QUEUE", "refunds"),
                concurrency=8, poll_interval=0.5)


def lookup_order(ctx: ToolContext) -> dict[str, Any]:
    """A read-only tool: the order (fake: totals derived from the id)."""
    order_id = ctx.params["order_id"]
    return {"order_id": order_id, "total_cents": 25_000 if order_id.startswith("big") else 900}


def issue_refund(ctx: ToolContext) -> dict[str, Any]:
    """The side effect, at a provider that deduplicates on the idempotency key."""
    provider = FakeProvider(DSN, namespace=NAMESPACE)
    return provider.charge(ctx.idempotency_key, "refund", dict(ctx.params))


@worker.agent("refund")
async def refund(run: Run) -> dict[str, Any]:
    order = await run.tool(lookup_order, key="lookup",
                           params={"order_id": run.input["order_id"]})
    if order["total_cents"] > 10_000:
        approval = await run.wait_for_event("approval", timeout=timedelta(days=2),
                                            key="approve")
        if approval.timed_out or not approval.payload["approved"]:
            return {"refunded": False}
    await run.sleep(timedelta(seconds=COOL_OFF), key="cool-off")
    receipt = await run.tool(issue_refund, key="refund",
                             params={"order_id": order["order_id"],
                                     "amount_cents": order["total_cents"]},
                             dedup_fields=["order_id"])
    return {"refunded": True, "effect_id": receipt["effect_id"]}


def _start_worker(env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "actae", "worker", "refund_desk_worker:worker"],
        cwd=Path(__file__).resolve().parent, env=env,
    )


def _wait_for(client: SyncActaeClient, channel: str, statuses: set[str],
              timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while (status := client.get_run(channel).status) not in statuses:
        if time.monotonic() > deadline:
            raise SystemExit(f"FAIL: run {channel} stayed {status}")
        time.sleep(0.1)
    return status


def demo() -> int:
    queue = f"refunds-{uuid.uuid4().hex[:8]}"
    namespace = f"refund-desk-{uuid.uuid4().hex[:8]}/"
    env = {**os.environ, "REFUND_QUEUE": queue, "REFUND_PROVIDER_NAMESPACE": namespace,
           "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parent),
                                          os.environ.get("PYTHONPATH", "")])}
    channel = f"refund-big-{uuid.uuid4().hex[:8]}"
    with SyncActaeClient(DSN) as client:
        first = _start_worker(env)
        client.start_run(channel, "refund", {"order_id": f"big-{channel}"}, queue)
        print(f"started run {channel} (a 250.00 refund: it needs approval)", flush=True)
        _wait_for(client, channel, {"waiting"})
        print(f"run is waiting for approval; SIGKILL the worker (pid {first.pid})", flush=True)
        first.send_signal(signal.SIGKILL)
        first.wait()
        subprocess.run([sys.executable, "-m", "actae", "event", "send", channel, "approval",
                        "--payload", '{"approved": true}'], env=env, check=True)
        print(f"approved from the CLI while no worker runs; run is "
              f"{client.get_run(channel).status}, wake reason "
              f"{client.get_run(channel).wake_reason}", flush=True)
        second = _start_worker(env)
        try:
            status = _wait_for(client, channel, {"completed", "failed", "cancelled"})
        finally:
            second.send_signal(signal.SIGTERM)
            second.wait(30)
        run = client.get_run(channel)
    provider = FakeProvider(DSN, namespace=namespace)
    refunds = provider.effects()
    print(f"run {status} after {run.attempt} claims: {run.result}", flush=True)
    print(f"provider: {refunds} refund(s)", flush=True)
    ok = status == "completed" and run.result["refunded"] and refunds == 1
    print("OK: refunded once" if ok else "FAIL", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    if not DSN:
        raise SystemExit("set ACTAE_DSN")
    if sys.argv[1:] == ["demo"]:
        raise SystemExit(demo())
    worker.run()
