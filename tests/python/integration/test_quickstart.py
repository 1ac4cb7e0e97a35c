"""The README's quick start, taken from the markdown and run as its own process (the second
worker) while this test's session plays the first worker: it runs the tool only when it owns
the call, and leaves a call owned by someone else, or failed for good, alone."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from actae import LeaseLost, SyncActaeClient
from actae.models import Execution
from tests.python.support.databases import fresh_database
from tests.python.support.markdown import first_python_after

README = Path(__file__).resolve().parents[3] / "README.md"
CHANNEL, KEY, TOOL = "run-7f2a", "charge_customer:order-4471", "charge_customer"
PARAMS = {"order_id": "4471", "amount_cents": 4200}
SAMPLE_RESULT = {"charge_id": "ch_1", "amount_cents": 4200}


@pytest.fixture
def db(dsn: str) -> Iterator[str]:
    """The sample's ids are fixed, so each test gets a database of its own."""
    with fresh_database(dsn, "actae_quickstart") as scratch:
        yield scratch


def sample(dsn: str) -> subprocess.CompletedProcess[str]:
    code = first_python_after(README, "Quick start").code
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "ACTAE_DSN": dsn}, timeout=60)


def stored(client: SyncActaeClient) -> Execution:
    return client.get_execution(channel_id=CHANNEL, key_name=KEY)


def test_the_sample_is_self_contained_and_short() -> None:
    code = first_python_after(README, "Quick start").code
    assert "ACTAE_DSN" in code and "claim.owned" in code
    assert len(code.strip().splitlines()) <= 25


def test_claims_runs_then_replays(db: str) -> None:
    first = sample(db)
    assert (first.returncode, first.stderr) == (0, "")
    assert first.stdout == f"claimed {SAMPLE_RESULT}\n"
    again = sample(db)
    assert again.stdout == f"replayed {SAMPLE_RESULT}\n"
    with SyncActaeClient(db, max_size=1) as client:
        row = stored(client)
    assert (row.status, row.result, row.fence, row.attempt) == (
        "completed", SAMPLE_RESULT, 1, 1)


def test_leaves_a_call_another_worker_owns_alone(db: str) -> None:
    with SyncActaeClient(db, max_size=1) as worker_a:
        held = worker_a.claim_execution(CHANNEL, KEY, TOOL, PARAMS, ["order_id"], 60)
        assert held.owned
        busy = sample(db)  # worker B
        assert busy.returncode == 1 and busy.stdout == ""
        assert busy.stderr.startswith("charge is running elsewhere until ")
        row = stored(worker_a)
        assert (row.status, row.result, row.fence) == ("claimed", None, 1)
        # A still owns the call and records its own result; B then replays it
        worker_a.complete_execution(held.execution.id, held.claim_token, {"charge_id": "ch_a"})
    replay = sample(db)
    assert replay.stdout == "replayed {'charge_id': 'ch_a'}\n"


def test_reports_a_call_that_failed_for_good(db: str) -> None:
    with SyncActaeClient(db, max_size=1) as worker_a:
        held = worker_a.claim_execution(CHANNEL, KEY, TOOL, PARAMS, ["order_id"], 60)
        worker_a.fail_execution(held.execution.id, "card declined", held.claim_token,
                                retryable=False)
        failed = sample(db)
        assert (failed.returncode, failed.stdout) == (1, "")
        assert failed.stderr == "charge failed: card declined\n"
        row = stored(worker_a)
    assert (row.status, row.attempt, row.result) == ("failed", 1, None)


def test_takes_over_a_lapsed_lease_and_fences_the_old_owner(db: str) -> None:
    with SyncActaeClient(db, max_size=1) as worker_a:
        held = worker_a.claim_execution(CHANNEL, KEY, TOOL, PARAMS, ["order_id"], 1)
        with worker_a.pool.connection() as conn:  # the lease lapses (worker A stalled)
            conn.execute("update actae.executions set lease_expires_at = clock_timestamp()"
                         " - interval '1 second' where execution_id = %s",
                         (held.execution.id,))
        took_over = sample(db)
        assert took_over.stdout == f"reclaimed {SAMPLE_RESULT}\n", took_over.stderr
        row = stored(worker_a)
        assert (row.status, row.fence, row.attempt, row.ambiguous) == (
            "completed", 2, 2, True)
        with pytest.raises(LeaseLost):
            worker_a.complete_execution(held.execution.id, held.claim_token, {"late": True})
