"""Migration 0006 on a database that already holds a cancellation written the old way.

Before 0006 a cancelled execution was stored as status 'failed', not retryable, with an
error text starting 'cancelled:'. The test builds a database at 0005 (the real migrations
and functions of that time: the repository's migrations 0001-0005 with the sql/ files as
they were, from git), writes such rows, migrates to the current schema and checks that
the cancellation became status 'cancelled' while everything else stayed as it was.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from actae.migrate import migrate
from tests.python.support.databases import tree_at

BEFORE_0006 = "6a5b40a501e443f7708ddaf02a2104ee72d43490"  # schema 0005, with its sql/


@pytest.fixture
def scratch_dsn(dsn: str) -> Iterator[str]:
    name = f"actae_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute(f'create database "{name}"')
        try:
            yield make_conninfo(dsn, dbname=name)
        finally:
            admin.execute(f'drop database if exists "{name}" with (force)')


def test_0006_turns_old_cancellations_into_the_cancelled_status(
    scratch_dsn: str, tmp_path: Path
) -> None:
    old = tree_at(BEFORE_0006, tmp_path)
    assert sorted(p.name for p in (old / "migrations").glob("*.sql"))[-1].startswith("0005")
    migrate(scratch_dsn, old)
    with psycopg.connect(scratch_dsn, autocommit=True) as conn:
        def claim(key: str) -> tuple[object, object]:
            row = conn.execute(
                "select execution_id, claim_token from actae.claim_execution("
                "'mig', %s, 't', '{}')", (key,)).fetchone()
            assert row is not None
            return row[0], row[1]

        # cancelled the old way: fail_execution by the owner after cancel_execution
        cancelled = claim("cancelled")
        conn.execute("select actae.cancel_execution(%s, 'customer asked')", (cancelled[0],))
        conn.execute("select actae.fail_execution(%s, 'cancelled: customer asked', %s, false)",
                     (cancelled[0], cancelled[1]))
        # cancelled the old way by cancel_execution on a retryable failure
        retry = claim("retry")
        conn.execute("select actae.fail_execution(%s, 'timeout', %s, true)", retry)
        conn.execute("select actae.cancel_execution(%s, 'stop')", (retry[0],))
        # a real permanent failure, and one that merely stays retryable
        declined = claim("declined")
        conn.execute("select actae.fail_execution(%s, 'CardDeclined: no', %s, false)",
                     declined)
        flaky = claim("flaky")
        conn.execute("select actae.fail_execution(%s, 'cancelled: looks like it', %s, true)",
                     flaky)
        before = dict(conn.execute(
            "select key_name, status from actae.executions order by key_name").fetchall())
    assert before == {"cancelled": "failed", "retry": "failed", "declined": "failed",
                      "flaky": "failed"}

    assert "0006_states_and_clock" in migrate(scratch_dsn)
    with psycopg.connect(scratch_dsn, autocommit=True) as conn:
        after = {row[0]: row[1:] for row in conn.execute(
            "select key_name, status, error, retryable from actae.executions")}
        outcome = conn.execute(
            "select outcome, status from actae.claim_execution('mig', 'cancelled', 't', '{}')"
        ).fetchone()
    assert after == {
        "cancelled": ("cancelled", "cancelled: customer asked", False),
        "retry": ("cancelled", "cancelled: stop", False),
        "declined": ("failed", "CardDeclined: no", False),
        "flaky": ("failed", "cancelled: looks like it", True),
    }
    assert outcome == ("failed", "cancelled")
