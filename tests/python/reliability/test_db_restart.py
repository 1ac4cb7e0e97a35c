"""Database restart: PostgreSQL is crashed (pg_ctl stop -m immediate) and started again
while workers run — and SIGKILLs keep coming. Committed facts survive, the driver's pool
reconnects, and the exactly-once figures are those of the kill test.

The test starts and crashes its own throwaway server; it never touches the shared one.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import psycopg
import pytest

from actae.client import SyncActaeClient

from .crashes import Scenario, check, run_scenario
from .pgserver import ThrowawayServer, restarts


@pytest.fixture(scope="module")
def server() -> Iterator[ThrowawayServer]:
    with ThrowawayServer() as srv:
        yield srv


@pytest.mark.parametrize("strategy", ["keyed", "reconcile"])
def test_crash_restart_keeps_every_committed_fact(
    server: ThrowawayServer, strategy: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # The first crash lands 0.5-1.5 s in, while every slot is still working (a faster
    # machine or server once finished the whole workload before a later first crash).
    scenario = Scenario(strategy=strategy, slots=4, workflows_per_slot=3, steps=4,
                        kills_per_slot=2)
    figures = run_scenario(server.dsn, scenario,
                           fault=restarts(server, every=(0.5, 1.5), down=0.5, limit=2))
    with capsys.disabled():
        print(f"\n[restart] {figures.line()}")
    assert figures.db_restarts >= 1
    assert figures.connection_errors > 0  # workers really lost the database and came back
    check(figures)


def test_pool_reconnects_after_a_crash(server: ThrowawayServer) -> None:
    """The driver's pool replaces connections the crash broke: a call made after the restart
    fails at most once per stale pooled connection (psycopg.OperationalError, never an Actae
    error) and then succeeds on a fresh one; what committed before the crash is there."""
    channel = f"pool-{time.time_ns()}"
    with SyncActaeClient(server.dsn, max_size=2) as client:
        claim = client.claim_execution(channel, "k", "t", {"a": 1}, lease_seconds=60)
        assert claim.claim_token is not None
        client.complete_execution(claim.execution.id, claim.claim_token, {"done": True})
        server.crash()
        server.start()
        failures = 0
        for _ in range(10):
            try:
                replay = client.claim_execution(channel, "k", "t", {"a": 1})
                break
            except psycopg.OperationalError:
                failures += 1
                time.sleep(0.2)
        else:
            raise AssertionError("the pool never reconnected")
        assert failures <= 2
        assert replay.status == "replayed" and replay.result == {"done": True}
