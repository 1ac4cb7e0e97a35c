"""A Pydantic AI refund desk made durable with one line, killed after the refund went through.

    ACTAE_DSN=... python python/examples/pydantic_ai_refund.py

The agent (a scripted FunctionModel standing in for an LLM: no network, no key) looks the
order up, refunds it through a payment provider, sends a receipt and answers. Its only Actae
line is ``capabilities=[ActaeDurability(client)]``.

1. Worker A runs the agent; the provider confirms the refund and A is SIGKILLed before Actae
   records the tool's result.
2. Worker B runs the same agent with the same ``run_id``. Turns 1-2 replay from the ledger (the
   model is not called), ``lookup_order`` replays, ``refund_payment`` is reclaimed (ambiguous)
   and called again with the same idempotency key, so the provider refunds once; turns 3-4
   run live.
3. The run is forked at turn 2 and the fork runs with receipts in German: turns 1-2 and their
   tools replay, only turns 3-4 call the model.

Exits non-zero when an invariant breaks (one refund; model calls and tokens as stated). Each
worker is this file run as ``worker RUN_ID [--crash-after-refund] [--receipt-language L]``;
it prints ``@ {json}`` fact lines the driver reads.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from typing import Any

import psycopg
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from actae import ActaeClient
from actae.pydantic_ai import MODEL_EVENT, ActaeDurability, current_tool

LEASE_SECONDS = 2
ORDER = {"order_id": "4471", "amount_cents": 4200}
PLAN = [  # what the scripted model asks for, turn by turn
    ("lookup_order", {"order_id": "4471"}),
    ("refund_payment", ORDER),
    ("send_receipt", {"order_id": "4471"}),
]
PROVIDER_SCHEMA = """
create schema if not exists refund_provider;
create table if not exists refund_provider.refunds (
    provider_key text primary key, order_id text not null, amount_cents integer not null,
    created_at timestamptz not null default clock_timestamp());
create table if not exists refund_provider.requests (
    request_id bigserial primary key, provider_key text not null);
"""


def fact(**facts: Any) -> None:
    print("@ " + json.dumps(facts, default=str), flush=True)


# --- a payment provider that deduplicates on the idempotency key (Stripe-style) ---------------

class RefundProvider:
    """Refunds kept in PostgreSQL, so they survive the SIGKILL of the worker that asked."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("select pg_advisory_lock(4716)")
            try:
                conn.execute(PROVIDER_SCHEMA)
            finally:
                conn.execute("select pg_advisory_unlock(4716)")

    def refund(self, key: str, order_id: str, amount_cents: int) -> dict[str, Any]:
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute("insert into refund_provider.requests (provider_key) values (%s)", (key,))
            conn.execute(
                "insert into refund_provider.refunds (provider_key, order_id, amount_cents)"
                " values (%s, %s, %s) on conflict do nothing", (key, order_id, amount_cents))
            row = conn.execute("select order_id, amount_cents from refund_provider.refunds"
                               " where provider_key = %s", (key,)).fetchone()
        assert row is not None
        return {"refund_id": f"re_{key[-10:]}", "order_id": row[0], "amount_cents": row[1]}

    def count(self, table: str, key: str) -> int:
        """Refunds (table "refunds") or requests ("requests") made under one key."""
        with psycopg.connect(self.dsn, autocommit=True) as conn:
            row = conn.execute(f"select count(*) from refund_provider.{table}"
                               " where provider_key = %s", (key,)).fetchone()
        return int(row[0]) if row else 0


# --- the agent ---------------------------------------------------------------------------------

def scripted_model(calls: list[int]) -> FunctionModel:
    """Asks for the tools of PLAN in order, then answers; 1500 input + 60 output tokens a turn."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls.append(1)
        returns = [p for m in messages for p in getattr(m, "parts", [])
                   if isinstance(p, ToolReturnPart)]
        usage = RequestUsage(input_tokens=1500, output_tokens=60)
        if len(returns) < len(PLAN):
            name, args = PLAN[len(returns)]
            # a real model invents a fresh id per call; the ledger keeps it for the resume
            call = ToolCallPart(name, args, tool_call_id=f"call_{uuid.uuid4().hex[:12]}")
            return ModelResponse(parts=[call], usage=usage, model_name="scripted")
        receipt = returns[-1].content
        return ModelResponse(parts=[TextPart(f"Refunded order 4471. {receipt}")], usage=usage,
                             model_name="scripted")

    return FunctionModel(respond)


def build_agent(client: ActaeClient, provider: RefundProvider, calls: list[int],
                crash_after_refund: bool, receipt_language: str) -> Agent[None, str]:
    agent = Agent(scripted_model(calls), capabilities=[ActaeDurability(
        client, dedup_fields={"refund_payment": ["order_id"]}, lease_seconds=LEASE_SECONDS)])

    @agent.tool_plain
    def lookup_order(order_id: str) -> dict[str, Any]:
        """Find the order."""
        return {"order_id": order_id, "amount_cents": 4200, "status": "delivered"}

    @agent.tool_plain
    def refund_payment(order_id: str, amount_cents: int) -> dict[str, Any]:
        """Refund the payment (a side effect, deduplicated by the provider on the key)."""
        tool = current_tool()
        assert tool is not None
        refund = provider.refund(tool.idempotency_key, order_id, amount_cents)
        fact(refunded=refund, key=tool.idempotency_key, attempt=tool.attempt,
             ambiguous=tool.ambiguous)
        if crash_after_refund:
            fact(ready=True)  # the driver SIGKILLs this process now
            time.sleep(60)
        return refund

    @agent.tool_plain
    def send_receipt(order_id: str) -> str:
        """Send the customer a receipt."""
        return ("Quittung verschickt." if receipt_language == "de" else "Receipt sent.")

    return agent


async def run_worker(dsn: str, run_id: str, crash_after_refund: bool,
                     receipt_language: str) -> int:
    calls: list[int] = []
    provider = RefundProvider(dsn)
    async with ActaeClient(dsn, max_size=4) as client:
        agent = build_agent(client, provider, calls, crash_after_refund, receipt_language)
        result = await agent.run("Please refund order 4471.", run_id=run_id)
    fact(output=result.output, model_calls=len(calls))
    return 0


# --- the driver --------------------------------------------------------------------------------

def start(dsn: str, run_id: str, *flags: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, os.path.abspath(__file__), "worker", run_id, *flags],
                            stdout=subprocess.PIPE, text=True, env={**os.environ, "ACTAE_DSN": dsn})


def facts_of(proc: subprocess.Popen[str], until: str | None = None) -> list[dict[str, Any]]:
    """Read a worker's fact lines until it exits (or until a fact named ``until`` appears)."""
    assert proc.stdout is not None
    facts: list[dict[str, Any]] = []
    for line in proc.stdout:
        if line.startswith("@ "):
            facts.append(json.loads(line[2:]))
            if until is not None and until in facts[-1]:
                return facts
    proc.wait(timeout=60)
    return facts


def one(facts: list[dict[str, Any]], key: str) -> Any:
    return next(f[key] for f in facts if key in f)


async def recorded_tokens(dsn: str, run_id: str, turns: int) -> int:
    """Input + output tokens the first ``turns`` recorded model turns of the run cost."""
    async with ActaeClient(dsn, max_size=1) as client:
        total = 0
        async for event in client.iter_events(run_id):
            if event.event_type == MODEL_EVENT and event.payload["run_step"] <= turns:
                usage = event.payload["usage"]
                total += usage["input_tokens"] + usage["output_tokens"]
        return total


async def fork_at_turn(dsn: str, run_id: str, turn: int) -> tuple[str, int]:
    async with ActaeClient(dsn, max_size=1) as client:
        cursor = [e.cursor async for e in client.iter_events(run_id)
                  if e.operation_id == f"model:{turn}"][0]
        fork = await client.fork_channel(run_id, cursor, f"{run_id}-fork-de")
    return fork.channel_id, cursor


def main(dsn: str) -> int:
    run_id = f"pai-refund-{uuid.uuid4().hex[:10]}"
    provider = RefundProvider(dsn)
    problems: list[str] = []

    def check(ok: bool, what: str) -> None:
        print(f"  {'ok  ' if ok else 'FAIL'} {what}", flush=True)
        if not ok:
            problems.append(what)

    print(f"Pydantic AI refund desk, run {run_id}")
    a = start(dsn, run_id, "--crash-after-refund")
    one_a = facts_of(a, until="ready")
    os.kill(a.pid, signal.SIGKILL)
    a.wait(timeout=30)
    print(f"1. worker A: provider refunded {one(one_a, 'refunded')['refund_id']}; "
          f"A killed with SIGKILL (exit {a.returncode})")
    check(a.returncode == -signal.SIGKILL, "worker A died of SIGKILL after the refund")

    b = start(dsn, run_id)
    facts_b = facts_of(b)
    print(f"2. worker B resumed: {one(facts_b, 'output')!r} with {one(facts_b, 'model_calls')} "
          "model calls (turns 3-4; turns 1-2 replayed)")
    check(b.returncode == 0, "worker B finished the run")
    check(one(facts_b, "ambiguous") is True, "worker B's refund attempt was flagged ambiguous")
    check(one(facts_b, "model_calls") == 2, "worker B called the model for turns 3 and 4 only")
    key = one(one_a, "key")
    check(one(facts_b, "key") == key, "worker B used worker A's idempotency key")
    check(provider.count("refunds", key) == 1 and provider.count("requests", key) == 2,
          "the provider refunded exactly once (2 requests, 1 refund)")

    fork_id, cursor = asyncio.run(fork_at_turn(dsn, run_id, 2))
    f = start(dsn, fork_id, "--receipt-language", "de")
    facts_f = facts_of(f)
    saved = asyncio.run(recorded_tokens(dsn, run_id, 2))
    print(f"3. fork at turn 2 (cursor {cursor}), receipts in German: "
          f"{one(facts_f, 'output')!r}; {one(facts_f, 'model_calls')} model calls instead of 4, "
          f"{saved} tokens not spent")
    check(f.returncode == 0 and one(facts_f, "model_calls") == 2,
          "the fork called the model for turns 3 and 4 only")
    check(not any("refunded" in x for x in facts_f), "the fork did not refund again")
    check("Quittung" in one(facts_f, "output"), "the fork's new turns ran live")
    print("INVARIANT HOLDS" if not problems else f"FAILED: {problems}")
    return 1 if problems else 0


if __name__ == "__main__":
    dsn = os.environ["ACTAE_DSN"]
    if len(sys.argv) > 2 and sys.argv[1] == "worker":
        language = sys.argv[sys.argv.index("--receipt-language") + 1] \
            if "--receipt-language" in sys.argv else "en"
        sys.exit(asyncio.run(run_worker(dsn, sys.argv[2], "--crash-after-refund" in sys.argv,
                                        language)))
    sys.exit(main(dsn))
