"""The stalled worker: a worker frozen with SIGSTOP past its lease must lose it for good.

Worker A (a real process) claims with a 1 s lease and heartbeats while it works; it is
frozen with SIGSTOP, worker B (another process) reclaims, and A is resumed with SIGCONT.
The fence, not A's belief or its clock, decides: every write A attempts is LeaseLost.
"""

from __future__ import annotations

import json
import os
import signal
import time
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from .harness import expect, send, spawn

LEASE = 1


@pytest.fixture
def workers(dsn: str) -> Iterator[tuple[Any, Any]]:
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


def freeze_a_past_its_lease(a: Any, channel: str) -> None:
    claimed = command(a, op="claim", channel=channel, key="k", lease=LEASE)
    assert claimed["outcome"] == "claimed" and claimed["fence"] == 1
    # A heartbeats for LEASE + 0.8 s of wall time, so after SIGCONT it beats once more and
    # then finishes: complete and fail.
    send(a, json.dumps({"op": "heartbeat_loop", "interval": 0.1, "seconds": LEASE + 0.8}))
    assert expect(a, "beat")["fence"] == 1  # A is the owner and knows it
    os.kill(a.pid, signal.SIGSTOP)
    time.sleep(LEASE + 0.5)


@pytest.mark.parametrize("b_finishes_first", [True, False])
def test_resumed_worker_is_fenced_out(dsn: str, workers: tuple[Any, Any],
                                      b_finishes_first: bool) -> None:
    a, b = workers
    channel = f"stall-{uuid.uuid4().hex[:12]}"
    freeze_a_past_its_lease(a, channel)
    reclaimed = command(b, op="claim", channel=channel, key="k", lease=30)
    assert reclaimed["outcome"] == "reclaimed" and reclaimed["fence"] == 2
    assert reclaimed["ambiguous"] is True  # A's attempt ended with no recorded outcome
    if b_finishes_first:
        assert command(b, op="complete", result={"by": "B"})["status"] == "completed"
    os.kill(a.pid, signal.SIGCONT)
    report = expect(a, "reply")
    rejected = {"ok": False, "error": "LeaseLost", "sqlstate": "AC423"}
    assert report["heartbeat"] == rejected
    assert report["complete"] == rejected
    assert report["fail"] == rejected
    if not b_finishes_first:
        assert command(b, op="complete", result={"by": "B"})["status"] == "completed"
    assert ledger_row(dsn, channel) == ("completed", 2, 2, {"by": "B"})


def test_lapsed_lease_nobody_reclaimed_is_still_honoured(dsn: str,
                                                         workers: tuple[Any, Any]) -> None:
    """The contrast: without a reclaim, A's token is still the current one after SIGCONT."""
    a, _ = workers
    channel = f"stall-{uuid.uuid4().hex[:12]}"
    freeze_a_past_its_lease(a, channel)
    os.kill(a.pid, signal.SIGCONT)
    report = expect(a, "reply")
    assert report["heartbeat"]["ok"] is True
    assert report["complete"] == {"ok": True, "status": "completed", "fence": 1}
    assert report["fail"]["error"] == "IdempotencyConflict"  # already completed
    assert ledger_row(dsn, channel) == ("completed", 1, 1, {"by": "A"})
