"""A worker process for the run suites: ``python -m tests.python.reliability.runs_agents
'<config json>'`` (or ``... runs_agents approve '<config json>'`` for the approver).

Config: dsn, queue, namespace (the fake provider's), name, lease (seconds), tool_seconds
(how long the charge takes; widens the kill windows), sleep (the cool-off, seconds),
wait_timeout (seconds). The process runs an ``actae.Worker`` with two agents:

``five`` — the 5-step agent of the survival test:
  1. lookup (a read-only tool)
  2. charge (an effect at a provider that deduplicates on Actae's idempotency key)
  3. sleep ``sleep`` seconds (durable)
  4. wait for an ``approval`` event (durable; sent by a separate process), or time out
  5. receipt (a second keyed effect)
``slow`` — one long charge, for the stalled-worker and cancellation tests.
``between`` — a charge, ``think`` seconds of work the ledger does not record (a model
call), then a refund: for a worker stalled between two steps.

On SIGTERM it shuts down gracefully and prints its stats as one JSON line on stdout.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
import time
from datetime import timedelta
from typing import Any

import psycopg
from psycopg_pool import PoolTimeout

from actae import ActaeError, Run, SyncActaeClient, ToolContext, Worker
from actae.fakes import FakeProvider


def build(config: dict[str, Any]) -> Worker:
    dsn: str = config["dsn"]
    worker = Worker(dsn, queue=config["queue"], concurrency=config.get("concurrency", 8),
                    name=config.get("name"), lease_seconds=config.get("lease", 2),
                    poll_interval=config.get("poll", 0.2),
                    shutdown_grace=config.get("grace", 1.0))
    provider = FakeProvider(dsn, namespace=config["namespace"])
    tool_seconds = float(config.get("tool_seconds", 0.02))

    def lookup(ctx: ToolContext) -> dict[str, Any]:
        return {"order": ctx.params["order"], "cents": 100 + int(ctx.params["order"]) % 900}

    def charge(ctx: ToolContext) -> dict[str, Any]:
        time.sleep(tool_seconds)
        receipt = provider.charge(ctx.idempotency_key, ctx.tool_name, dict(ctx.params))
        time.sleep(tool_seconds / 2)
        return receipt

    @worker.agent("five")
    async def five(run: Run) -> dict[str, Any]:
        order = await run.tool(lookup, key="lookup", params={"order": run.input["order"]})
        paid = await run.tool(charge, key="charge", tool_name="charge", params=order,
                              dedup_fields=["order"])
        await run.sleep(timedelta(seconds=config.get("sleep", 1)), key="cool-off")
        approval = await run.wait_for_event(
            "approval", timeout=timedelta(seconds=config.get("wait_timeout", 600)),
            key="approve")
        if approval.timed_out:
            return {"charged": paid["effect_id"], "approved": None}
        receipt = await run.tool(charge, key="receipt", tool_name="receipt",
                                 params={**order, "approved": approval.payload["approved"]},
                                 dedup_fields=["order"])
        return {"charged": paid["effect_id"], "receipt": receipt["effect_id"],
                "approved": approval.payload["approved"]}

    @worker.agent("between")
    async def between(run: Run) -> dict[str, Any]:
        order = {"order": run.input["order"]}
        paid = await run.tool(charge, key="charge", tool_name="charge", params=order)
        await asyncio.sleep(float(config.get("think", 3.0)))
        refund = await run.tool(charge, key="refund", tool_name="refund", params=order)
        return {"charged": paid["effect_id"], "refunded": refund["effect_id"]}

    @worker.agent("slow")
    async def slow(run: Run) -> dict[str, Any]:
        paid = await run.tool(charge, key="charge", tool_name="charge",
                              params={"order": run.input["order"]})
        return {"charged": paid["effect_id"], "by": worker.name}

    return worker


def approve(config: dict[str, Any]) -> None:
    """The person approving, as a separate process: every ``poll`` seconds, send an approval
    to every waiting run of the queue (operation_id ``approval``: sending twice records
    once), across connection losses, until SIGTERM."""
    sent = 0
    while True:
        try:
            with SyncActaeClient(config["dsn"], max_size=1) as client:
                while True:
                    for run in client.list_runs(config["queue"], "waiting", max_rows=100000):
                        done = client.record_event(run.channel_id, "approval",
                                                   {"approved": True}, "approval")
                        sent += done.outcome == "recorded"
                    print(json.dumps({"e": "approvals", "sent": sent}), flush=True)
                    time.sleep(config.get("poll", 0.2))
        except (psycopg.Error, ActaeError, PoolTimeout):
            time.sleep(0.2)


def main() -> None:
    if sys.argv[1] == "approve":
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        approve(json.loads(sys.argv[2]))
        return
    config = json.loads(sys.argv[1])
    worker = build(config)
    worker.run()
    print(json.dumps({"e": "stats", "name": worker.name, **worker.stats}), flush=True)


if __name__ == "__main__":
    main()
