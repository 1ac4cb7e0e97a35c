"""Race: N callers (connections in threads, or OS processes) claim one key at the same
instant, epoch after epoch, and the ledger must hand out exactly one lease per epoch.

The instant is a PostgreSQL barrier: the race holds an exclusive advisory lock while every
caller queues for it in shared mode, and releases it once all N are waiting.
"""

from __future__ import annotations

import json
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import psycopg

from .claimer import Claimer
from .harness import expect, send, spawn

Command = dict[str, Any]
Reply = dict[str, Any]
# Sends one command to every caller (or to the given indexes), runs the release hook once the
# commands are under way, and returns the replies by caller index.
Broadcast = Callable[[Command, Sequence[int] | None, Callable[[], None] | None],
                     dict[int, Reply]]


@dataclass
class RaceFigures:
    mode: str
    callers: int
    epochs: int = 0
    claims: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    owner_by_fence: dict[int, int] = field(default_factory=dict)
    stale_rejections: int = 0
    extra_owners: int = 0  # callers handed a lease beyond the first in one epoch
    ownerless_epochs: int = 0  # epochs in which nobody got the lease
    stale_accepted: int = 0  # writes by a stale owner that the ledger accepted
    seconds: float = 0.0

    def line(self) -> str:
        return (f"{self.mode:<11} callers={self.callers} epochs={self.epochs}"
                f" claims={self.claims} outcomes={dict(self.outcomes)}"
                f" owners_by_fence={self.owner_by_fence}"
                f" stale_owner_rejections={self.stale_rejections} time={self.seconds:.1f}s")


def run_race(dsn: str, mode: str, callers: int = 32, epochs: int = 3,
             lease: int = 1) -> RaceFigures:
    """Race ``callers`` claimers (mode "connections" or "processes") over ``epochs`` lease
    epochs; raise AssertionError on any broken promise."""
    started = time.monotonic()
    figures = RaceFigures(mode, callers)
    runner = _threads if mode == "connections" else _processes
    with runner(dsn, callers) as broadcast:
        _epochs(dsn, broadcast, figures, callers, epochs, lease)
    figures.seconds = time.monotonic() - started
    return figures


def _epochs(dsn: str, broadcast: Broadcast, figures: RaceFigures, callers: int, epochs: int,
            lease: int) -> None:
    channel, key = f"race-{uuid.uuid4().hex[:12]}", "the-key"
    believers: set[int] = set()  # every caller that was ever handed the lease
    barrier_key = uuid.uuid4().int % (2**62)
    with psycopg.connect(dsn, autocommit=True) as conn:
        for epoch in range(1, epochs + 1):
            conn.execute("select pg_advisory_lock(%s)", (barrier_key,))
            claim = {"op": "claim", "channel": channel, "key": key, "lease": lease,
                     "barrier": barrier_key}
            replies = broadcast(claim, None, lambda: _release(conn, barrier_key, callers))
            figures.epochs += 1
            figures.claims += len(replies)
            outcomes = Counter(reply["outcome"] for reply in replies.values())
            figures.outcomes.update(outcomes)
            owners = [i for i, reply in replies.items() if reply["owned"]]
            figures.extra_owners += max(len(owners) - 1, 0)
            figures.ownerless_epochs += not owners
            expected = "claimed" if epoch == 1 else "reclaimed"
            assert outcomes == Counter({expected: 1, "in_progress": callers - 1}), outcomes
            owner = owners[0]
            fence = replies[owner]["fence"]
            assert fence == epoch, (fence, epoch)
            assert fence not in figures.owner_by_fence
            figures.owner_by_fence[fence] = owner
            if epoch > 1:
                assert replies[owner]["ambiguous"] is True
            believers.add(owner)
            # Everyone who was ever handed the lease tries to use it: only this epoch's owner.
            beats = broadcast({"op": "heartbeat"}, sorted(believers), None)
            for caller, beat in beats.items():
                if caller == owner:
                    assert beat["ok"] and beat["fence"] == epoch, beat
                else:
                    figures.stale_accepted += bool(beat["ok"])
                    assert beat == {"ok": False, "error": "LeaseLost", "sqlstate": "AC423"}, beat
                    figures.stale_rejections += 1
            if epoch < epochs:
                time.sleep(lease + 0.3)  # the owner stops heartbeating; its lease lapses
        finals = broadcast({"op": "complete", "result": {"fence": epochs}}, sorted(believers),
                           None)
        for caller, final in finals.items():
            if caller == owner:
                assert final["ok"] and final["status"] == "completed", final
            else:
                figures.stale_accepted += bool(final.get("ok"))
                assert final["error"] == "LeaseLost", final
                figures.stale_rejections += 1
        conn.execute("select pg_advisory_lock(%s)", (barrier_key,))
        replays = broadcast({"op": "claim", "channel": channel, "key": key, "lease": lease,
                             "barrier": barrier_key}, None,
                            lambda: _release(conn, barrier_key, callers))
        figures.claims += len(replays)
        assert Counter(r["outcome"] for r in replays.values()) == Counter({"replayed": callers})
        row = conn.execute(
            "select fence, attempt, status, result from actae.executions"
            " where channel_id = %s and key_name = %s", (channel, key)).fetchone()
        assert row == (epochs, epochs, "completed", {"fence": epochs}), row


def _release(conn: psycopg.Connection[Any], key: int, callers: int) -> None:
    """Release the barrier once all callers queue on it."""
    deadline = time.monotonic() + 60
    while True:
        row = conn.execute(
            "select count(*) from pg_locks where locktype = 'advisory' and not granted"
            " and objid = (%s::bigint & 4294967295)::oid"
            " and classid = (%s::bigint >> 32)::oid", (key, key)).fetchone()
        waiting = 0 if row is None else int(row[0])
        if waiting >= callers:
            break
        if time.monotonic() > deadline:
            raise AssertionError(f"{waiting} of {callers} callers reached the barrier")
        time.sleep(0.005)
    conn.execute("select pg_advisory_unlock(%s)", (key,))


@contextmanager
def _threads(dsn: str, callers: int) -> Iterator[Broadcast]:
    claimers = [Claimer(dsn) for _ in range(callers)]
    pool = ThreadPoolExecutor(max_workers=callers)

    def broadcast(command: Command, who: Sequence[int] | None,
                  release: Callable[[], None] | None) -> dict[int, Reply]:
        targets = range(callers) if who is None else who
        futures = {i: pool.submit(claimers[i].handle, command) for i in targets}
        if release is not None:
            release()
        return {i: future.result(timeout=60) for i, future in futures.items()}

    try:
        yield broadcast
    finally:
        pool.shutdown()
        for claimer in claimers:
            claimer.conn.close()


@contextmanager
def _processes(dsn: str, callers: int) -> Iterator[Broadcast]:
    procs = [spawn("claimer", {"dsn": dsn}) for _ in range(callers)]
    try:
        for proc in procs:
            expect(proc, "ready")

        def broadcast(command: Command, who: Sequence[int] | None,
                      release: Callable[[], None] | None) -> dict[int, Reply]:
            targets = range(callers) if who is None else who
            for i in targets:
                send(procs[i], json.dumps(command))
            if release is not None:
                release()
            replies = {i: expect(procs[i], "reply") for i in targets}
            return {i: {k: v for k, v in reply.items() if k not in ("e", "op")}
                    for i, reply in replies.items()}

        yield broadcast
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()


