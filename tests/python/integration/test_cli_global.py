"""The ``actae`` console script as users meet it: global options before the subcommand, a
closed pipe, bad intervals, readable key lifetimes. (``actae demo`` on ACTAE_DSN runs from
docs/demo.md in test_docs.py; its stories' invariants are checked in test_demo.py and
test_fork_report.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import psycopg

ACTAE = str(Path(sys.executable).parent / "actae")


def actae(
    *args: str, dsn: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ACTAE_DSN"}
    if dsn is not None:
        env["ACTAE_DSN"] = dsn
    return subprocess.run([ACTAE, *args], capture_output=True, text=True, env=env,
                          timeout=timeout)


def one_line(done: subprocess.CompletedProcess[str], code: int = 1) -> str:
    assert done.returncode == code, (done.stdout, done.stderr)
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_dsn_and_json_before_the_subcommand(dsn: str, conn: psycopg.Connection,
                                            unique: Callable[..., str]) -> None:
    channel = unique("cli-global")
    conn.execute("select actae.record_event(%s, 'step', '{}')", (channel,))
    done = actae("--dsn", dsn, "--json", "channel", "show", channel)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["channel"]["head_cursor"] == 1
    status = actae("--json", "status", dsn=dsn)
    assert status.returncode == 0, status.stderr
    assert "schema_version" in json.loads(status.stdout)["status"]


def test_a_closed_pipe_ends_quietly(dsn: str, conn: psycopg.Connection,
                                    unique: Callable[..., str]) -> None:
    channel = unique("cli-pipe")
    # ~1000 rows of ~150 bytes: more than a pipe holds, so the write after head exits fails
    conn.execute("select actae.claim_execution(%s, 'k' || n, 'pipe', '{}')"
                 " from generate_series(1, 1000) as n", (channel,))
    done = subprocess.run(
        ["bash", "-c", f'set -o pipefail; "{ACTAE}" executions --channel "$1" --limit 1000'
                       ' | head -1; echo "status=$?"', "bash", channel],
        capture_output=True, text=True, env={**os.environ, "ACTAE_DSN": dsn}, timeout=60)
    assert done.stderr == "", done.stderr  # no traceback, no "Exception ignored"
    first, status = done.stdout.splitlines()
    assert first.split()[:2] == ["EXECUTION_ID", "CHANNEL"]
    assert status == "status=141"  # what a process killed by SIGPIPE reports


def test_bad_intervals_are_one_line_naming_the_argument(dsn: str,
                                                         unique: Callable[..., str]) -> None:
    assert one_line(actae("purge", "--older-than", "thirty days", dsn=dsn), 2) == (
        "actae purge: --older-than must be an interval such as '30 days' or '12 hours', "
        "got 'thirty days'")
    assert one_line(actae("channel", "key-ttl", unique("cli-ttl"), "7 dayz", "--create",
                          dsn=dsn), 2) == (
        "actae channel: TTL must be an interval such as '30 days' or '12 hours', "
        "got '7 dayz'")
    # in range checks stay Actae's own (AC400 names the argument)
    assert "AC400" in one_line(actae("channel", "key-ttl", unique("cli-ttl"), "200 years",
                                     "--create", dsn=dsn))


def test_key_ttl_is_printed_as_an_interval_people_read(dsn: str,
                                                        unique: Callable[..., str]) -> None:
    channel = unique("cli-ttl")
    # A channel that does not exist is refused (a misspelled id would get the lifetime, the
    # real channel not), and not created; --create sets it on a new one.
    assert one_line(actae("channel", "key-ttl", channel, "36 hours", dsn=dsn), 1) == (
        f"actae channel: channel {channel} does not exist (is the id misspelled? --create"
        " sets it on a new channel)")
    assert one_line(actae("channel", "show", channel, dsn=dsn), 1).endswith("[AC404]")
    done = actae("channel", "key-ttl", channel, "36 hours", "--create", dsn=dsn)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"channel {channel} key lifetime: 1 day 12 hours\n"
    shown = actae("channel", "show", channel, dsn=dsn)
    assert "key lifetime   1 day 12 hours" in shown.stdout
    week = actae("channel", "key-ttl", channel, "1 week", dsn=dsn)
    assert week.stdout == f"channel {channel} key lifetime: 7 days\n"


def test_an_unreachable_database_fails_fast_in_one_line() -> None:
    line = one_line(actae("status", "--dsn", "host=/nonexistent-actae port=1", timeout=20))
    assert line.startswith("actae status: cannot connect to the database: ")
    assert "/nonexistent-actae" in line

