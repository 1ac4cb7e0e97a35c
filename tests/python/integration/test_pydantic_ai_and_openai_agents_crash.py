"""Both framework integrations, end to end in real processes against a real database: a worker
SIGKILLed after the payment provider confirmed, a resume in a new process that refunds exactly
once and pays only for the model turns not recorded, and a fork at a middle turn that replays
the prefix's model turns and tools. The workers are the examples under python/examples/."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest

# Processes and timing, the same on any server: make test runs it in its second pass only.
pytestmark = pytest.mark.second

EXAMPLES = Path(__file__).resolve().parents[3] / "python" / "examples"
# The examples' shared driver helpers, loaded from their file (the examples import it as a
# sibling module when run as scripts).
_SPEC = importlib.util.spec_from_file_location("refund_story", EXAMPLES / "refund_story.py")
assert _SPEC is not None and _SPEC.loader is not None
story = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(story)

FRAMEWORKS = ["pydantic_ai_refund.py", "openai_agents_refund.py"]
TURN_TOKENS = story.INPUT_TOKENS + story.OUTPUT_TOKENS  # per scripted model turn


def start(example: str, dsn: str, run_id: str, *flags: str) -> subprocess.Popen[str]:
    return story.start(str(EXAMPLES / example), dsn, run_id, *flags)


def read_facts(proc: subprocess.Popen[str], until: str | None = None) -> list[dict[str, Any]]:
    facts = story.facts_of(proc, until)
    assert until is not None or proc.returncode == 0, f"worker failed: {facts}"
    return facts


def fact(facts: list[dict[str, Any]], key: str) -> Any:
    value = story.one(facts, key)
    assert value is not None, f"no fact {key!r} in {facts}"
    return value


def provider_count(conn: psycopg.Connection[Any], table: str, key: str) -> int:
    row = conn.execute(f"select count(*) from refund_provider.{table} where provider_key = %s",
                       (key,)).fetchone()
    assert row is not None
    return int(row[0])


def model_turns(conn: psycopg.Connection[Any], channel: str) -> dict[str, int]:
    """operation_id -> cursor of the channel's recorded model turns (inherited ones included)."""
    rows = conn.execute("select operation_id, cursor from actae.list_events(%s, 0, 1000)"
                        " where operation_id like 'model:%%' order by cursor", (channel,))
    return dict(rows.fetchall())


@pytest.mark.parametrize("example", FRAMEWORKS)
def test_sigkill_after_refund_then_resume_refunds_once(
    example: str, dsn: str, conn: psycopg.Connection[Any], unique: Callable[..., str]
) -> None:
    run_id = unique("crash")
    a = start(example, dsn, run_id, "--crash-after-refund")
    facts_a = read_facts(a, until="ready")  # the provider has confirmed the refund
    os.kill(a.pid, signal.SIGKILL)
    assert a.wait(timeout=30) == -signal.SIGKILL
    key = fact(facts_a, "key")
    assert provider_count(conn, "refunds", key) == 1
    status = conn.execute("select status, result from actae.get_execution(%s, %s)",
                          (run_id, _refund_key(conn, run_id)))
    row = status.fetchone()
    assert row is not None and row[0] in ("claimed", "in_progress") and row[1] is None
    # no outcome recorded: the crash window between the provider and Actae

    facts_b = read_facts(start(example, dsn, run_id))  # resume in a new process
    assert fact(facts_a, "ambiguous") is False and fact(facts_a, "attempt") == 1
    assert fact(facts_b, "key") == key  # the same execution, the same idempotency key
    assert fact(facts_b, "ambiguous") is True and fact(facts_b, "attempt") == 2
    assert provider_count(conn, "requests", key) == 2
    assert provider_count(conn, "refunds", key) == 1  # exactly one refund
    # turns 1-2 were recorded by A and replayed by B: B paid for turns 3 and 4 only
    assert fact(facts_b, "model_calls") == 2
    assert fact(facts_b, "output") == "Refunded order 4471. Receipt sent."
    assert list(model_turns(conn, run_id)) == ["model:1", "model:2", "model:3", "model:4"]
    rows = conn.execute("select tool_name, status, attempt from actae.list_executions(%s)"
                        " order by created_at", (run_id,)).fetchall()
    assert rows == [("lookup_order", "completed", 1), ("refund_payment", "completed", 2),
                    ("send_receipt", "completed", 1)]

    # a third run of the same run id replays everything: no model call, no provider request
    facts_c = read_facts(start(example, dsn, run_id))
    assert fact(facts_c, "model_calls") == 0
    assert fact(facts_c, "output") == "Refunded order 4471. Receipt sent."
    assert not any("refunded" in f for f in facts_c)
    assert provider_count(conn, "requests", key) == 2


def _refund_key(conn: psycopg.Connection[Any], run_id: str) -> str:
    row = conn.execute("select key_name from actae.list_executions(%s)"
                       " where tool_name = 'refund_payment'", (run_id,)).fetchone()
    assert row is not None
    return str(row[0])


@pytest.mark.parametrize("example", FRAMEWORKS)
def test_fork_at_a_middle_turn_replays_the_prefix(
    example: str, dsn: str, conn: psycopg.Connection[Any], unique: Callable[..., str]
) -> None:
    run_id = unique("fork-src")
    facts = read_facts(start(example, dsn, run_id))
    assert fact(facts, "model_calls") == 4
    turns = model_turns(conn, run_id)
    row = conn.execute("select channel_id from actae.fork_channel(%s, %s, %s)",
                       (run_id, turns["model:2"], f"{run_id}-fork")).fetchone()
    assert row is not None
    fork_id = row[0]

    forked = read_facts(start(example, dsn, fork_id, "--receipt-language", "de"))
    assert fact(forked, "model_calls") == 2  # turns 3 and 4; turns 1 and 2 replayed
    assert fact(forked, "output") == "Refunded order 4471. Quittung verschickt."
    assert not any("refunded" in f for f in forked)  # the inherited refund replayed
    spent = conn.execute(
        "select sum((payload->'usage'->>'input_tokens')::int"
        " + (payload->'usage'->>'output_tokens')::int)"
        " from actae.list_events(%s, 0, 1000) where operation_id like 'model:%%'",
        (fork_id,)).fetchone()
    assert spent is not None
    # the fork's ledger holds all four turns; two of them (inherited) were never paid again
    assert spent[0] == 4 * TURN_TOKENS
    assert list(model_turns(conn, fork_id)) == ["model:1", "model:2", "model:3", "model:4"]
    assert model_turns(conn, run_id) == turns  # the source is untouched
    own = conn.execute("select tool_name from actae.list_executions(%s)", (fork_id,)).fetchall()
    assert own == [("send_receipt",)]  # lookup and refund were inherited, not re-run


@pytest.mark.parametrize("example", FRAMEWORKS)
def test_example_story_runs(example: str, dsn: str) -> None:
    done = subprocess.run([sys.executable, str(EXAMPLES / example)], capture_output=True,
                          text=True, env={**os.environ, "ACTAE_DSN": dsn}, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "INVARIANT HOLDS" in done.stdout and "FAIL" not in done.stdout
