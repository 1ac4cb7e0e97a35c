"""Every ``actae`` command, run through the installed console script against the test server.

Data is arranged by calling Actae's SQL functions; timestamps are moved back with plain
UPDATEs (as the test database's superuser) instead of sleeping.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

# The command line's own behaviour (output, statuses) over the SQL the other suites run on
# every server: make test runs it in its PostgreSQL 18 pass only.
pytestmark = pytest.mark.second

ACTAE = Path(sys.executable).parent / "actae"
REPO = Path(__file__).resolve().parents[3]
Runner = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def actae(dsn: str) -> Runner:
    """Run the console script with ACTAE_DSN set; returns the finished process."""

    def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        environment = {**os.environ, "ACTAE_DSN": dsn} if env is None else env
        return subprocess.run(
            [str(ACTAE), *args], capture_output=True, text=True, env=environment, timeout=60
        )

    return run


def ok_json(actae: Runner, *args: str) -> Any:
    done = actae(*args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def one_line_error(done: subprocess.CompletedProcess[str], code: int = 1) -> str:
    assert done.returncode == code
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def claim(conn: psycopg.Connection, channel: str, key: str, tool: str, lease: int = 60) -> dict:
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute(
            "select * from actae.claim_execution(%s, %s, %s, %s, null, %s)",
            (channel, key, tool, Jsonb({"key": key}), lease),
        )
        row = cur.fetchone()
    assert row is not None
    return row


def complete(conn: psycopg.Connection, row: dict, result: Any) -> None:
    conn.execute(
        "select actae.complete_execution(%s, %s, %s)",
        (row["execution_id"], row["claim_token"], Jsonb(result)),
    )


def expire(conn: psycopg.Connection, execution_id: uuid.UUID) -> None:
    conn.execute(
        "update actae.executions set lease_expires_at = clock_timestamp() - interval '1 minute'"
        " where execution_id = %s",
        (execution_id,),
    )


def test_migrate_reports_up_to_date_and_status(actae: Runner) -> None:
    done = actae("migrate")
    assert done.returncode == 0, done.stderr
    assert "up to date" in done.stdout
    states = {m["name"]: m["state"] for m in ok_json(actae, "migrate", "--status")}
    assert states["0002_operations"] == "applied"


def test_status_counts_executions_by_status_and_tool(
    actae: Runner, conn: psycopg.Connection, unique: Callable[..., str]
) -> None:
    channel, tool = unique("cli-status"), unique("tool")
    complete(conn, claim(conn, channel, "a", tool), {"ok": 1})
    expire(conn, claim(conn, channel, "b", tool)["execution_id"])
    claim(conn, channel, "c", tool)
    stopped = claim(conn, channel, "d", tool)
    conn.execute("select actae.cancel_execution(%s, 'not needed')", (stopped["execution_id"],))
    conn.execute("select actae.fail_execution(%s, 'stopped', %s, true)",
                 (stopped["execution_id"], stopped["claim_token"]))
    report = ok_json(actae, "status")
    status = report["status"]
    newest = max(int(p.name[:4]) for p in (REPO / "migrations").glob("[0-9]*.sql"))
    assert status["schema_version"] == newest
    assert status["expired_leases"] >= 1
    assert status["executions"] >= 4 and status["cancelled"] >= 1
    assert status["oldest_in_flight_claimed_at"] is not None
    mine = [t for t in report["tools"] if t["tool_name"] == tool]
    assert len(mine) == 1
    assert (mine[0]["executions"], mine[0]["completed"], mine[0]["claimed"],
            mine[0]["cancelled"]) == (4, 1, 2, 1)

    text = actae("status")
    assert text.returncode == 0, text.stderr
    assert "schema version" in text.stdout and "expired leases" in text.stdout
    assert f"cancelled {status['cancelled']})" in text.stdout
    tool_line = next(line for line in text.stdout.splitlines() if line.startswith(tool))
    # executions in_flight completed failed cancelled
    assert tool_line.split()[1:6] == ["4", "2", "1", "0", "1"]
    listed = ok_json(actae, "executions", "--channel", channel, "--status", "cancelled")
    assert [(e["key_name"], e["status"]) for e in listed] == [("d", "cancelled")]


def test_executions_stuck_lists_only_lapsed_leases(
    actae: Runner, conn: psycopg.Connection, unique: Callable[..., str]
) -> None:
    channel = unique("cli-stuck")
    lapsed = claim(conn, channel, "lapsed", "crawl")
    expire(conn, lapsed["execution_id"])
    live = claim(conn, channel, "live", "crawl", lease=600)
    stuck_ids = {e["execution_id"] for e in ok_json(actae, "executions", "--stuck",
                                                     "--limit", "100000")}
    assert str(lapsed["execution_id"]) in stuck_ids
    assert str(live["execution_id"]) not in stuck_ids

    # --stuck narrowed to a channel (or a status) lists that channel's lapsed leases only:
    # an operator about to cancel what it shows must not see another run's.
    other = claim(conn, unique("cli-stuck-other"), "lapsed", "crawl")
    expire(conn, other["execution_id"])
    narrowed = ok_json(actae, "executions", "--stuck", "--channel", channel)
    assert [e["execution_id"] for e in narrowed] == [str(lapsed["execution_id"])]
    assert ok_json(actae, "executions", "--stuck", "--status", "completed") == []
    listed = ok_json(actae, "executions", "--channel", channel, "--status", "claimed")
    assert {e["key_name"] for e in listed} == {"lapsed", "live"}
    assert all(e["claim_token"] is None for e in listed)
    text = actae("executions", "--channel", channel)
    assert text.returncode == 0
    assert text.stdout.splitlines()[0].split()[:5] == [
        "EXECUTION_ID", "CHANNEL", "KEY", "TOOL", "STATUS"]
    assert str(lapsed["execution_id"]) in text.stdout


def test_fork_and_channel_show(
    actae: Runner, conn: psycopg.Connection, unique: Callable[..., str]
) -> None:
    source, fork = unique("cli-src"), unique("cli-fork")
    complete(conn, claim(conn, source, "charge-1", "charge"), {"id": "ch_1"})
    for n in range(1, 4):
        conn.execute("select actae.record_event(%s, 'step', %s)", (source, Jsonb({"n": n})))
    receipt = ok_json(actae, "fork", source, "--at", "2", "--new-id", fork,
                      "--policy", "charge=block", "--policy", "search=live")
    assert receipt["outcome"] == "forked"
    assert (receipt["channel_id"], receipt["source_channel_id"], receipt["fork_cursor"]) == (
        fork, source, 2)
    assert receipt["tool_policies"] == {"charge": "block", "search": "live"}
    again = ok_json(actae, "fork", source, "--at", "2", "--new-id", fork,
                    "--policy", "charge=block", "--policy", "search=live")
    assert again["outcome"] == "replayed"
    with pytest.raises(psycopg.Error) as blocked:
        claim(conn, fork, "charge-2", "charge")
    assert blocked.value.sqlstate == "AC403"

    shown = ok_json(actae, "channel", "show", fork, "--events", "1")
    assert shown["channel"]["parent_channel_id"] == source
    assert shown["channel"]["head_cursor"] == 2
    assert [(a["ancestor_channel_id"], a["inherited_cursor"]) for a in shown["lineage"]] == [
        (source, 2)]
    assert [e["cursor"] for e in shown["events"]] == [2]
    text = actae("channel", "show", fork)
    assert text.returncode == 0, text.stderr
    assert f"{source}@2 > {fork}" in text.stdout
    assert "charge-1" not in text.stdout  # inherited executions are the source's rows
    assert "LAST EVENTS (2 of 2)" in text.stdout

    bad = one_line_error(actae("fork", source, "--at", "2", "--policy", "charge"), 2)
    assert "--policy" in bad


def test_cancel_then_abandoned_execution_fails_for_good(
    actae: Runner, conn: psycopg.Connection, unique: Callable[..., str]
) -> None:
    channel = unique("cli-cancel")
    row = claim(conn, channel, "k", "charge")
    done = actae("cancel", str(row["execution_id"]), "--reason", "customer asked")
    assert done.returncode == 0, done.stderr
    assert "cancel requested" in done.stdout
    with conn.cursor(row_factory=dict_row) as cur:
        cur.execute("select * from actae.heartbeat_execution(%s, %s)",
                    (row["execution_id"], row["claim_token"]))
        beat = cur.fetchone()
    assert beat is not None and beat["cancel_requested"] is True
    expire(conn, row["execution_id"])
    after = claim(conn, channel, "k", "charge")
    assert (after["outcome"], after["error"]) == ("failed", "cancelled: customer asked")
    assert after["status"] == "cancelled"

    finished = claim(conn, channel, "done", "charge")
    complete(conn, finished, {"ok": True})
    error = one_line_error(actae("cancel", str(finished["execution_id"]), "--reason", "x"))
    assert "AC409" in error and "completed" in error
    assert "UUID" in one_line_error(actae("cancel", "not-a-uuid", "--reason", "x"), 2)

    retry = claim(conn, channel, "retry", "charge")
    conn.execute("select actae.fail_execution(%s, 'timeout', %s, true)",
                 (retry["execution_id"], retry["claim_token"]))
    failed = ok_json(actae, "cancel", str(retry["execution_id"]), "--reason", "stop")
    assert (failed["status"], failed["error"], failed["retryable"]) == (
        "cancelled", "cancelled: stop", False)


def test_channel_close_key_ttl_and_purge(
    actae: Runner, conn: psycopg.Connection, unique: Callable[..., str]
) -> None:
    old, kept, keyed = unique("cli-old"), unique("cli-kept"), unique("cli-keyed")
    for channel in (old, kept):
        conn.execute("select actae.record_event(%s, 'step', '{}')", (channel,))
    complete(conn, claim(conn, old, "k", "search"), [1])
    closed = actae("channel", "close", old)
    assert closed.returncode == 0, closed.stderr
    assert closed.stdout.startswith(f"channel {old} closed at ")
    assert ok_json(actae, "channel", "close", kept)["closed_at"] is not None
    with conn.transaction():
        conn.execute(
            "update actae.channels set closed_at = closed_at - interval '2 days'"
            " where channel_id = any(%s)", ([old, kept],))
        conn.execute(
            "update actae.events set recorded_at = recorded_at - interval '2 days'"
            " where channel_id = %s", (old,))
        conn.execute(
            "update actae.executions set claimed_at = claimed_at - interval '2 days',"
            " finished_at = finished_at - interval '2 days' where channel_id = %s", (old,))

    assert ok_json(actae, "channel", "key-ttl", keyed, "1 hour",
                   "--create")["key_ttl"] == "PT1H"
    complete(conn, claim(conn, keyed, "k", "search"), [2])
    conn.execute("update actae.executions set finished_at = finished_at - interval '2 hours'"
                 " where channel_id = %s", (keyed,))

    report = ok_json(actae, "purge", "--older-than", "1 day", "--batch-size", "100000")
    assert report["channels"] >= 1 and report["events"] >= 1 and report["executions"] >= 2
    assert report["more"] is False
    gone = one_line_error(actae("channel", "show", old))
    assert gone == f"actae channel: channel {old} does not exist [AC404]"
    assert ok_json(actae, "channel", "show", kept)["channel"]["head_cursor"] == 1
    again = claim(conn, keyed, "k", "search")
    assert (again["outcome"], again["attempt"]) == ("claimed", 1)

    cleared = actae("channel", "key-ttl", keyed, "none")
    assert cleared.stdout.strip() == f"channel {keyed} key lifetime: none"
    assert "AC400" in one_line_error(actae("purge", "--older-than", "-1 day"))


def test_purge_stops_at_max_batches(
    actae: Runner, conn: psycopg.Connection, unique: Callable[..., str]
) -> None:
    channel = unique("cli-batches")
    conn.execute("select actae.set_key_ttl(%s, '1 second')", (channel,))
    for n in range(3):
        complete(conn, claim(conn, channel, f"k{n}", "search"), n)
    conn.execute("update actae.executions set finished_at = finished_at - interval '1 hour'"
                 " where channel_id = %s", (channel,))
    first = ok_json(actae, "purge", "--older-than", "100 years", "--batch-size", "1",
                    "--max-batches", "2")
    assert (first["batches"], first["executions"], first["more"]) == (2, 2, True)
    text = actae("purge", "--older-than", "100 years", "--batch-size", "1", "--max-batches",
                 "1")
    assert "purged 0 channels, 0 events, 0 snapshots, 1 executions" in text.stdout


def test_errors_are_one_line_with_nonzero_exit(actae: Runner) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ACTAE_DSN"}
    assert one_line_error(actae("status", env=env), code=2) == (
        "actae status: no database given: pass --dsn or set ACTAE_DSN")
    bad = one_line_error(actae("status", "--dsn", "host=/nonexistent-actae port=1"))
    assert bad.startswith("actae status: ")


def test_migrate_loads_only_top_level_sql_files() -> None:
    """sql/citus/distribute.sql is for Citus coordinators only: migrate must never run it."""
    from actae.migrate import find_sql_files, sql_root

    root = sql_root()
    assert (root / "sql" / "citus" / "distribute.sql").is_file()
    loaded = find_sql_files(root)
    assert loaded and all(p.parent == root / "sql" for p in loaded)


def _closed_two_days_ago(conn: psycopg.Connection, channel: str) -> None:
    conn.execute("select actae.record_event(%s, 'step', '{}')", (channel,))
    conn.execute("select actae.close_channel(%s)", (channel,))
    conn.execute("update actae.channels set closed_at = closed_at - interval '2 days'"
                 " where channel_id = %s", (channel,))
    conn.execute("update actae.events set recorded_at = recorded_at - interval '2 days'"
                 " where channel_id = %s", (channel,))


def test_purge_never_takes_a_channel_a_concurrent_fork_is_inheriting(
    actae: Runner, dsn: str, conn: psycopg.Connection, unique: Callable[..., str]
) -> None:
    """A fork being created in another open transaction holds the source's row lock; purge
    skips the source, and once the fork commits the source is an ancestor and stays."""
    source, fork = unique("cli-race-src"), unique("cli-race-fork")
    _closed_two_days_ago(conn, source)
    with psycopg.connect(dsn) as forker:
        forker.execute("select actae.fork_channel(%s, 1, %s)", (source, fork))
        during = actae("purge", "--older-than", "1 day")
        assert during.returncode == 0, during.stderr
        forker.commit()
    ok_json(actae, "purge", "--older-than", "1 day")
    shown = ok_json(actae, "channel", "show", fork)
    assert [e["cursor"] for e in shown["events"]] == [1]
    assert shown["lineage"][0]["ancestor_channel_id"] == source
