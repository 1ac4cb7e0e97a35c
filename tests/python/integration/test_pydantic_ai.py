"""actae.pydantic_ai against a real database: crash after the provider confirmed, resume in a new
process, exactly one refund; a fork at a middle turn replays the prefix; replay rules in-process
with Pydantic AI's own TestModel and FunctionModel (no network)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest
from pydantic_ai import Agent, ModelRetry
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from actae import ActaeClient
from actae.pydantic_ai import MODEL_EVENT, ActaeDurability, ReplayDiverged, current_tool

EXAMPLE = Path(__file__).resolve().parents[3] / "python" / "examples" / "pydantic_ai_refund.py"


def start(dsn: str, run_id: str, *flags: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(EXAMPLE), "worker", run_id, *flags],
                            stdout=subprocess.PIPE, text=True, env={**os.environ, "ACTAE_DSN": dsn})


def read_facts(proc: subprocess.Popen[str], until: str | None = None) -> list[dict[str, Any]]:
    assert proc.stdout is not None
    facts: list[dict[str, Any]] = []
    for line in proc.stdout:
        if line.startswith("@ "):
            facts.append(json.loads(line[2:]))
            if until is not None and until in facts[-1]:
                return facts
    assert proc.wait(timeout=60) == 0, f"worker failed: {facts}"
    return facts


def fact(facts: list[dict[str, Any]], key: str) -> Any:
    return next(f[key] for f in facts if key in f)


def provider_count(conn: psycopg.Connection[Any], table: str, key: str) -> int:
    row = conn.execute(f"select count(*) from refund_provider.{table} where provider_key = %s",
                       (key,)).fetchone()
    assert row is not None
    return int(row[0])


def model_events(conn: psycopg.Connection[Any], channel: str) -> list[tuple[int, str]]:
    rows = conn.execute("select cursor, operation_id from actae.list_events(%s, 0, 1000)"
                        " where event_type = %s order by cursor", (channel, MODEL_EVENT))
    return [(r[0], r[1]) for r in rows.fetchall()]


def killed_then_resumed(dsn: str, run_id: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    a = start(dsn, run_id, "--crash-after-refund")
    facts_a = read_facts(a, until="ready")
    os.kill(a.pid, signal.SIGKILL)
    assert a.wait(timeout=30) == -signal.SIGKILL
    return facts_a, read_facts(start(dsn, run_id))


def test_sigkill_after_refund_then_resume_refunds_once(
    dsn: str, conn: psycopg.Connection[Any], unique: Callable[..., str]
) -> None:
    run_id = unique("pai-crash")
    facts_a, facts_b = killed_then_resumed(dsn, run_id)

    key = fact(facts_a, "key")
    assert fact(facts_a, "ambiguous") is False and fact(facts_a, "attempt") == 1
    assert fact(facts_b, "key") == key  # the same execution, the same idempotency key
    assert fact(facts_b, "ambiguous") is True and fact(facts_b, "attempt") == 2
    assert provider_count(conn, "requests", key) == 2
    assert provider_count(conn, "refunds", key) == 1  # exactly one refund
    # turns 1-2 were recorded by A and replayed by B: B paid for turns 3 and 4 only
    assert fact(facts_b, "model_calls") == 2
    assert fact(facts_b, "output") == "Refunded order 4471. Receipt sent."
    assert [op for _, op in model_events(conn, run_id)] == [f"model:{n}" for n in (1, 2, 3, 4)]
    rows = conn.execute("select tool_name, status, attempt from actae.list_executions(%s)"
                        " order by created_at", (run_id,)).fetchall()
    assert rows == [("lookup_order", "completed", 1), ("refund_payment", "completed", 2),
                    ("send_receipt", "completed", 1)]

    # a third run of the same run_id replays everything: no model call, no provider request
    facts_c = read_facts(start(dsn, run_id))
    assert fact(facts_c, "model_calls") == 0
    assert not any("refunded" in f for f in facts_c)
    assert provider_count(conn, "requests", key) == 2


def test_fork_at_a_middle_turn_replays_the_prefix(
    dsn: str, conn: psycopg.Connection[Any], unique: Callable[..., str]
) -> None:
    run_id = unique("pai-fork")
    facts = read_facts(start(dsn, run_id))
    assert fact(facts, "model_calls") == 4
    events = dict((op, cursor) for cursor, op in model_events(conn, run_id))
    row = conn.execute("select channel_id from actae.fork_channel(%s, %s, %s)",
                       (run_id, events["model:2"], f"{run_id}-fork")).fetchone()
    assert row is not None
    fork_id = row[0]

    forked = read_facts(start(dsn, fork_id, "--receipt-language", "de"))
    assert fact(forked, "model_calls") == 2  # turns 3 and 4; turns 1 and 2 replayed
    assert fact(forked, "output") == "Refunded order 4471. Quittung verschickt."
    assert not any("refunded" in f for f in forked)  # the inherited refund replayed
    tokens = conn.execute(
        "select sum((payload->'usage'->>'input_tokens')::int"
        " + (payload->'usage'->>'output_tokens')::int)"
        " from actae.list_events(%s, 0, 1000) where event_type = %s and cursor <= %s",
        (run_id, MODEL_EVENT, events["model:2"])).fetchone()
    assert tokens is not None and tokens[0] == 2 * (1500 + 60)  # not spent again by the fork
    # the fork recorded only its own turns; the source is untouched
    assert [op for _, op in model_events(conn, fork_id)] == [f"model:{n}" for n in (1, 2, 3, 4)]
    assert len(model_events(conn, run_id)) == 4
    own = conn.execute("select tool_name from actae.list_executions(%s)", (fork_id,)).fetchall()
    assert own == [("send_receipt",)]


def test_example_story_runs(dsn: str) -> None:
    done = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True,
                          env={**os.environ, "ACTAE_DSN": dsn}, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "INVARIANT HOLDS" in done.stdout


# --- in-process: the framework's own test models ----------------------------------------------

def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_test_model_run_replays_fully_on_second_run(dsn: str, unique: Callable[..., str]) -> None:
    calls: list[str] = []

    async def scenario() -> tuple[str, str, int]:
        async with ActaeClient(dsn, max_size=2) as client:
            model = TestModel()
            agent = Agent(model, capabilities=[ActaeDurability(client)])

            @agent.tool_plain
            def weather(city: str) -> str:
                tool = current_tool()
                assert tool is not None and tool.idempotency_key.startswith("actae-")
                calls.append(city)
                return f"sunny in {city}"

            run_id = unique("pai-test-model")
            first = await agent.run("weather?", run_id=run_id)
            requests_after_first = len(model.last_model_request_parameters.function_tools) \
                if model.last_model_request_parameters else 0
            second = await agent.run("weather?", run_id=run_id)
            return first.output, second.output, requests_after_first

    first, second, _ = run(scenario())
    assert first == second
    assert len(calls) == 1  # the tool ran once; the second run replayed it


def test_function_model_is_not_called_for_recorded_turns(
    dsn: str, unique: Callable[..., str]
) -> None:
    turns: list[int] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        turns.append(len(messages))
        if not any(isinstance(p, ToolReturnPart) for m in messages for p in m.parts):
            return ModelResponse(parts=[ToolCallPart("add", {"a": 2, "b": 3})])
        return ModelResponse(parts=[TextPart("five")])

    async def scenario() -> None:
        async with ActaeClient(dsn, max_size=2) as client:
            agent = Agent(FunctionModel(respond), capabilities=[ActaeDurability(client)])

            @agent.tool_plain
            def add(a: int, b: int) -> int:
                return a + b

            run_id = unique("pai-function-model")
            assert (await agent.run("2+3?", run_id=run_id)).output == "five"
            assert len(turns) == 2
            assert (await agent.run("2+3?", run_id=run_id)).output == "five"
            assert len(turns) == 2  # both turns replayed from the ledger
            with pytest.raises(ReplayDiverged, match="turn 1"):
                await agent.run("something else", run_id=run_id)

    run(scenario())


def test_model_retry_is_recorded_and_replayed(dsn: str, unique: Callable[..., str]) -> None:
    tool_calls: list[int] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        parts = [p for m in messages for p in m.parts]
        retries = sum(isinstance(p, RetryPromptPart) or getattr(p, "outcome", None) == "retried"
                      for p in parts)
        if sum(isinstance(p, ToolReturnPart) for p in parts) > retries:
            return ModelResponse(parts=[TextPart("charged")])
        amount = 0 if retries == 0 else 4200
        return ModelResponse(parts=[ToolCallPart("charge", {"amount_cents": amount})])

    async def scenario() -> tuple[Any, Any]:
        async with ActaeClient(dsn, max_size=2) as client:
            agent = Agent(FunctionModel(respond), capabilities=[ActaeDurability(client)])

            @agent.tool_plain
            def charge(amount_cents: int) -> str:
                tool_calls.append(amount_cents)
                if amount_cents <= 0:
                    raise ModelRetry("amount_cents must be positive")
                return f"charged {amount_cents}"

            run_id = unique("pai-retry")
            first = await agent.run("charge", run_id=run_id)
            second = await agent.run("charge", run_id=run_id)
            rows = await client.list_executions(run_id)
            return (first.output, second.output), sorted(
                (r.params["amount_cents"], r.status, json.dumps(r.result)) for r in rows)

    outputs, rows = run(scenario())
    assert outputs == ("charged", "charged")
    assert tool_calls == [0, 4200]  # each ran once; the retry was replayed, not re-run
    assert rows == [(0, "completed", json.dumps({"__actae_model_retry__":
                                                  "amount_cents must be positive"})),
                    (4200, "completed", json.dumps("charged 4200"))]


def test_non_durable_tool_and_dedup_fields(dsn: str, unique: Callable[..., str]) -> None:
    calls: list[str] = []

    async def scenario() -> list[Any]:
        async with ActaeClient(dsn, max_size=2) as client:
            agent = Agent(TestModel(), capabilities=[ActaeDurability(
                client, dedup_fields={"pay": ["order_id"]}, lease_seconds=30)])

            @agent.tool_plain(metadata={"actae": {"durable": False}})
            def clock() -> str:
                calls.append("clock")
                return "noon"

            @agent.tool_plain
            def pay(order_id: str, note: str) -> str:
                calls.append("pay")
                return "paid"

            run_id = unique("pai-settings")
            await agent.run("go", run_id=run_id)
            await agent.run("go", run_id=run_id)
            return await client.list_executions(run_id)

    rows = run(scenario())
    assert calls.count("clock") == 2  # not durable: runs every time
    assert calls.count("pay") == 1
    assert [(r.tool_name, r.dedup_fields, r.lease_seconds) for r in rows] == [
        ("pay", ["order_id"], 30)]
