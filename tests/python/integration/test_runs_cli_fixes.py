"""`actae run start --at` reads a time without an offset as the user's local time (TZ), not
in the database session's time zone; `actae run show` shows the lease expiry only while the
run runs, the sleep key only while it sleeps and the awaited event only while it waits (the
run row keeps the last ones after the run moved on)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from actae import SyncActaeClient
from actae.cli.main import main


def _start(dsn: str, *args: str, tz: str) -> subprocess.CompletedProcess[str]:
    # PGTZ sets the database session's time zone (libpq): UTC, five hours from New York.
    env = {**os.environ, "TZ": tz, "PGTZ": "UTC", "ACTAE_DSN": dsn}
    return subprocess.run([sys.executable, "-m", "actae", "run", "start", *args],
                          env=env, capture_output=True, text=True, timeout=60, check=False)


def test_at_without_an_offset_is_local_time(dsn: str, unique: Callable[..., str]) -> None:
    queue = unique("q")
    local, offset, utc = unique("local"), unique("offset"), unique("z")
    done = _start(dsn, local, "ag", "--queue", queue, "--at", "2030-01-01T09:00", "--json",
                  tz="America/New_York")
    assert done.returncode == 0, done.stderr
    assert datetime.fromisoformat(json.loads(done.stdout)["due_at"]) == datetime(
        2030, 1, 1, 14, 0, tzinfo=UTC)  # 09:00 in New York (EST, UTC-5)
    done = _start(dsn, offset, "ag", "--queue", queue, "--at", "2030-07-01T09:00+02:00",
                  "--json", tz="America/New_York")
    assert done.returncode == 0, done.stderr
    assert datetime.fromisoformat(json.loads(done.stdout)["due_at"]) == datetime(
        2030, 7, 1, 7, 0, tzinfo=UTC)  # an offset given is that offset
    done = _start(dsn, utc, "ag", "--queue", queue, "--at", "2030-07-01T09:00Z", "--json",
                  tz="Asia/Tokyo")
    assert done.returncode == 0, done.stderr
    assert datetime.fromisoformat(json.loads(done.stdout)["due_at"]) == datetime(
        2030, 7, 1, 9, 0, tzinfo=UTC)


def test_at_near_the_ends_of_the_calendar_is_decided_by_the_database(
    dsn: str, unique: Callable[..., str]
) -> None:
    """Python cannot convert a local 9999-12-31 or 0001-01-01: the database still answers
    (a time in year 9999 or later is refused, AC400; a past one is now)."""
    far, past = unique("far"), unique("past")
    done = _start(dsn, far, "ag", "--at", "9999-12-31T23:59", tz="Asia/Tokyo")
    assert done.returncode == 1, done.stderr
    assert "AC400" in done.stderr and "Traceback" not in done.stderr
    done = _start(dsn, past, "ag", "--queue", unique("q"), "--at", "0001-01-01T00:00",
                  "--json", tz="America/New_York")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "queued"


def test_a_naive_run_at_near_the_ends_of_the_calendar_through_the_driver(
    dsn: str, unique: Callable[..., str]
) -> None:
    """As through the command line: the driver's start_run and list_channels took a naive
    datetime(1, 1, 1) or datetime.max to a raw ValueError (year 0 / 10000 is out of range)."""
    from actae import SyncActaeClient
    from actae.errors import InvalidInput

    with SyncActaeClient(dsn, max_size=1) as client:
        run = client.start_run(unique("past"), "ag", {}, unique("q"), datetime(1, 1, 1))
        assert run.status == "queued" and run.due_at <= datetime.now(UTC)
        with pytest.raises(InvalidInput) as raised:
            client.start_run(unique("far"), "ag", {}, unique("q"), datetime.max)
        assert raised.value.sqlstate == "AC400"
        assert client.list_channels(created_after=datetime.max) == []
        assert client.list_channels(created_before=datetime(1, 1, 1)) == []


def test_at_help_says_local_time(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["run", "start", "--help"])
    assert "local time" in " ".join(capsys.readouterr().out.split())


def _shown(capsys: pytest.CaptureFixture[str], dsn: str, channel: str) -> dict[str, str]:
    assert main(["run", "show", channel, "--dsn", dsn]) == 0
    lines = capsys.readouterr().out.splitlines()
    found = (re.match(r"^(\S+(?: \S+)*)\s{2,}(.*)$", line) for line in lines)
    return {m.group(1): m.group(2) for m in found if m}


def test_show_hides_a_stale_lease_sleep_key_and_awaited_event(
    dsn: str, unique: Callable[..., str], capsys: pytest.CaptureFixture[str]
) -> None:
    sq, wq = unique("q"), unique("q")
    sleeper, waiter = unique("sleeper"), unique("waiter")
    with SyncActaeClient(dsn) as client:
        client.start_run(sleeper, "ag", {}, sq)
        claim = client.claim_run(sq, "w1")
        assert claim is not None and claim.claim_token is not None
        shown = _shown(capsys, dsn, sleeper)
        assert shown["status"] == "running" and shown["lease expires"] != "-"
        client.sleep_run(sleeper, claim.claim_token, "nap", 1)
        shown = _shown(capsys, dsn, sleeper)
        assert (shown["status"], shown["sleeping on"]) == ("sleeping", "nap")
        assert shown["lease expires"] == "-"
        time.sleep(1.2)
        claim = client.claim_run(sq, "w2")
        assert claim is not None and claim.claim_token is not None
        shown = _shown(capsys, dsn, sleeper)
        assert (shown["status"], shown["sleeping on"]) == ("running", "-")
        client.complete_run(sleeper, claim.claim_token, "done")
        shown = _shown(capsys, dsn, sleeper)
        assert (shown["status"], shown["lease expires"], shown["sleeping on"]) == (
            "completed", "-", "-")

        client.start_run(waiter, "ag", {}, wq)
        claim = client.claim_run(wq, "w1")
        assert claim is not None and claim.claim_token is not None
        client.wait_for_event(waiter, claim.claim_token, "ok", "approval", 600)
        shown = _shown(capsys, dsn, waiter)
        assert (shown["status"], shown["waiting for"]) == ("waiting", "approval (ok)")
        assert shown["lease expires"] == "-"
        client.record_event(waiter, "approval", {"approved": True})
        claim = client.claim_run(wq, "w2")
        assert claim is not None and claim.claim_token is not None
        shown = _shown(capsys, dsn, waiter)
        assert (shown["status"], shown["waiting for"]) == ("running", "-")
        client.fail_run(waiter, claim.claim_token, "no", retryable=False)
        shown = _shown(capsys, dsn, waiter)
        assert (shown["status"], shown["lease expires"], shown["waiting for"]) == (
            "failed", "-", "-")
