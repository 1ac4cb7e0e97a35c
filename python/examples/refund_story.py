"""The refund-desk crash story shared by pydantic_ai_refund.py and openai_agents_refund.py.

Both examples run an agent that looks an order up, refunds it through a payment provider, sends
a receipt and answers (four model turns, three tools). ``main`` drives one of them:

1. worker A runs the agent; the provider confirms the refund and A is SIGKILLed before Actae
   records the tool's result;
2. worker B runs the same run id: turns 1-2 replay from the ledger, the refund is reclaimed
   (ambiguous) and sent again with the same idempotency key, so the provider refunds once;
3. the run is forked at turn 2 and the fork runs with German receipts: turns 1-2 and their
   tools replay, only turns 3-4 call the model.

A worker is the example file run as ``worker RUN_ID [--crash-after-refund]
[--receipt-language L]``; it prints ``@ {json}`` fact lines that the driver reads.
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

from actae import ActaeClient, ToolContext

LEASE_SECONDS = 2
ORDER = {"order_id": "4471", "amount_cents": 4200}
#: what the scripted model asks for, turn by turn (then it answers)
PLAN: list[tuple[str, dict[str, Any]]] = [
    ("lookup_order", {"order_id": "4471"}),
    ("refund_payment", ORDER),
    ("send_receipt", {"order_id": "4471"}),
]
#: what each scripted model turn costs
INPUT_TOKENS, OUTPUT_TOKENS = 1500, 60
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


def receipt(language: str) -> str:
    return "Quittung verschickt." if language == "de" else "Receipt sent."


def answer(receipt_text: str) -> str:
    return f"Refunded order 4471. {receipt_text}"


class RefundProvider:
    """A payment provider that deduplicates on the idempotency key (Stripe-style), with its
    books in PostgreSQL so they survive the SIGKILL of the worker that asked."""

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


def lookup(order_id: str) -> dict[str, Any]:
    """What the lookup_order tool answers."""
    return {"order_id": order_id, "amount_cents": 4200, "status": "delivered"}


def refund(provider: RefundProvider, tool: ToolContext | None, order_id: str,
           amount_cents: int, crash_after_refund: bool) -> dict[str, Any]:
    """The refund_payment tool: refund under Actae's idempotency key, tell the driver, and
    wait to be SIGKILLed when asked to crash after the refund."""
    assert tool is not None, "refund_payment runs only as a durable tool"
    done = provider.refund(tool.idempotency_key, order_id, amount_cents)
    fact(refunded=done, key=tool.idempotency_key, attempt=tool.attempt, ambiguous=tool.ambiguous)
    if crash_after_refund:
        fact(ready=True)  # the driver SIGKILLs this process now
        time.sleep(60)
    return done


def worker_args(argv: list[str]) -> tuple[str, bool, str]:
    """(run id, crash after the refund?, receipt language) of a worker command line."""
    language = argv[argv.index("--receipt-language") + 1] \
        if "--receipt-language" in argv else "en"
    return argv[2], "--crash-after-refund" in argv, language


# --- the driver --------------------------------------------------------------------------------

def start(script: str, dsn: str, run_id: str, *flags: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, script, "worker", run_id, *flags],
                            stdout=subprocess.PIPE, text=True, env={**os.environ, "ACTAE_DSN": dsn})


def facts_of(proc: subprocess.Popen[str], until: str | None = None) -> list[dict[str, Any]]:
    """A worker's fact lines until it exits (or until a fact named ``until`` appears)."""
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
    return next((f[key] for f in facts if key in f), None)


async def turn_cursors(client: ActaeClient, run_id: str) -> dict[int, tuple[int, Any]]:
    """Model turn number -> (cursor, payload) of the run's recorded turns."""
    return {int(e.operation_id.split(":")[1]): (e.cursor, e.payload)
            async for e in client.iter_events(run_id)
            if e.operation_id and e.operation_id.startswith("model:")}


async def fork_at_turn(dsn: str, run_id: str, turn: int) -> tuple[str, int, int]:
    """Fork the run just after model turn ``turn``: (fork id, cursor, tokens of turns 1..turn)."""
    async with ActaeClient(dsn, max_size=1) as client:
        turns = await turn_cursors(client, run_id)
        cursor = turns[turn][0]
        fork = await client.fork_channel(run_id, cursor, f"{run_id}-fork-de")
    tokens = sum(p["usage"]["input_tokens"] + p["usage"]["output_tokens"]
                 for n, (_, p) in turns.items() if n <= turn)
    return fork.channel_id, cursor, tokens


def main(dsn: str, script: str, title: str) -> int:
    run_id = f"refund-{uuid.uuid4().hex[:10]}"
    provider = RefundProvider(dsn)
    problems: list[str] = []

    def check(ok: bool, what: str) -> None:
        print(f"  {'ok  ' if ok else 'FAIL'} {what}", flush=True)
        if not ok:
            problems.append(what)

    print(f"{title} refund desk, run {run_id}")
    a = start(script, dsn, run_id, "--crash-after-refund")
    facts_a = facts_of(a, until="ready")
    os.kill(a.pid, signal.SIGKILL)
    a.wait(timeout=30)
    refund_id = (one(facts_a, "refunded") or {}).get("refund_id")
    print(f"1. worker A: the provider refunded ({refund_id}); A killed with SIGKILL before"
          f" Actae recorded it (exit {a.returncode})")
    check(a.returncode == -signal.SIGKILL, "worker A died of SIGKILL after the refund")

    b = start(script, dsn, run_id)
    facts_b = facts_of(b)
    print(f"2. worker B resumed run {run_id}: {one(facts_b, 'output')!r} with "
          f"{one(facts_b, 'model_calls')} model calls (turns 1-2 replayed from the ledger)")
    check(b.returncode == 0, "worker B finished the run")
    check(one(facts_b, "ambiguous") is True, "worker B's refund attempt was flagged ambiguous")
    check(one(facts_b, "model_calls") == 2, "worker B called the model for turns 3 and 4 only")
    key = one(facts_a, "key")
    check(one(facts_b, "key") == key, "worker B used worker A's idempotency key")
    check(provider.count("refunds", key) == 1 and provider.count("requests", key) == 2,
          "the provider refunded exactly once (2 requests, 1 refund)")

    fork_id, cursor, saved = asyncio.run(fork_at_turn(dsn, run_id, 2))
    f = start(script, dsn, fork_id, "--receipt-language", "de")
    facts_f = facts_of(f)
    print(f"3. fork at turn 2 (cursor {cursor}) with German receipts: {one(facts_f, 'output')!r};"
          f" {one(facts_f, 'model_calls')} model calls instead of 4, {saved} tokens not spent")
    check(f.returncode == 0 and one(facts_f, "model_calls") == 2,
          "the fork called the model for turns 3 and 4 only")
    check(not any("refunded" in x for x in facts_f), "the fork replayed the refund")
    check("Quittung" in (one(facts_f, "output") or ""), "the fork's own turns ran live")
    print("INVARIANT HOLDS" if not problems else f"FAILED: {problems}")
    return 1 if problems else 0
