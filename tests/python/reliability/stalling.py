"""The stalled worker: worker A (a process) claims with a short lease and heartbeats while
it works; it is frozen with SIGSTOP past its lease; worker B (another process) may reclaim;
A is resumed with SIGCONT and reports what happened to its heartbeat, complete and fail."""

from __future__ import annotations

import json
import os
import signal
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import psycopg

from .harness import expect, send, spawn

LEASE = 1
REJECTED = {"ok": False, "error": "LeaseLost", "sqlstate": "AC423"}


@dataclass(frozen=True)
class Stall:
    """What A and B were told, and the ledger row afterwards (status, fence, attempt,
    result)."""

    reclaim: dict[str, Any] | None
    a_report: dict[str, Any]
    ledger: tuple[Any, ...]
    seconds: float


@contextmanager
def two_workers(dsn: str) -> Iterator[tuple[Any, Any]]:
    a, b = spawn("claimer", {"dsn": dsn}), spawn("claimer", {"dsn": dsn})
    try:
        expect(a, "ready")
        expect(b, "ready")
        yield a, b
    finally:
        for proc in (a, b):
            if proc.poll() is None:
                proc.send_signal(signal.SIGCONT)
                proc.kill()
            proc.wait()


def command(proc: Any, **fields: Any) -> dict[str, Any]:
    send(proc, json.dumps(fields))
    return expect(proc, "reply")


def ledger_row(dsn: str, channel: str) -> tuple[Any, ...]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "select status, fence, attempt, result from actae.executions"
            " where channel_id = %s and key_name = 'k'", (channel,)).fetchone()
    assert row is not None
    return tuple(row)


def run_stall(dsn: str, reclaim: bool, b_finishes_first: bool = True) -> Stall:
    """One round: freeze A past its lease; B reclaims (and completes before or after A
    resumes) unless ``reclaim`` is false; resume A and collect its report."""
    started = time.monotonic()
    channel = f"stall-{uuid.uuid4().hex[:12]}"
    with two_workers(dsn) as (a, b):
        claimed = command(a, op="claim", channel=channel, key="k", lease=LEASE)
        assert claimed["outcome"] == "claimed" and claimed["fence"] == 1, claimed
        # A heartbeats for LEASE + 0.8 s of wall time, so after SIGCONT it beats once more
        # and then finishes: complete and fail.
        send(a, json.dumps({"op": "heartbeat_loop", "interval": 0.1, "seconds": LEASE + 0.8}))
        assert expect(a, "beat")["fence"] == 1  # A is the owner and knows it
        os.kill(a.pid, signal.SIGSTOP)
        time.sleep(LEASE + 0.5)
        reclaimed = None
        if reclaim:
            reclaimed = command(b, op="claim", channel=channel, key="k", lease=30)
            if b_finishes_first:
                command(b, op="complete", result={"by": "B"})
        os.kill(a.pid, signal.SIGCONT)
        report = expect(a, "reply")
        if reclaim and not b_finishes_first:
            command(b, op="complete", result={"by": "B"})
    return Stall(reclaimed, report, ledger_row(dsn, channel), time.monotonic() - started)


def stale_writes_accepted(stall: Stall) -> int:
    """How many of A's heartbeat / complete / fail after the reclaim the ledger accepted."""
    return sum(bool(stall.a_report[op].get("ok")) for op in ("heartbeat", "complete", "fail"))


def check_fenced(stall: Stall) -> None:
    """B reclaimed: A's heartbeat, complete and fail are all LeaseLost; B's result stands."""
    assert stall.reclaim is not None
    assert stall.reclaim["outcome"] == "reclaimed" and stall.reclaim["fence"] == 2
    assert stall.reclaim["ambiguous"] is True  # A's attempt ended with no recorded outcome
    assert stall.a_report["heartbeat"] == REJECTED, stall.a_report
    assert stall.a_report["complete"] == REJECTED, stall.a_report
    assert stall.a_report["fail"] == REJECTED, stall.a_report
    assert stall.a_report["beats"] >= 1
    assert stall.ledger == ("completed", 2, 2, {"by": "B"}), stall.ledger
