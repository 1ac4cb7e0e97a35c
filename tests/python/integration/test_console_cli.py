"""actae timeline / forks / diff in a terminal, against a real database."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid

import pytest

from actae import SyncActaeClient
from actae.cli.main import main
from tests.python.support.console_harness import Story, make_story


@pytest.fixture(scope="module")
def story(dsn: str) -> Story:
    return make_story(dsn, f"cli-{uuid.uuid4().hex[:8]}")


def test_timeline_prints_the_lifecycle(
    dsn: str, story: Story, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["timeline", story.root, "--dsn", dsn]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["CLOCK", "CURSOR", "KIND"]
    assert any("reclaimed" in line and "AMBIGUOUS" in line for line in lines)
    assert any("failed" in line and "smtp: mailbox unavailable" in line for line in lines)
    assert story.claim_token not in out


def test_timeline_json_pages(dsn: str, story: Story, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["timeline", story.root, "--dsn", dsn, "--json", "--all", "--limit", "2"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    with SyncActaeClient(dsn, max_size=1) as client:
        expected = client.timeline(story.root, None, 1000)
    assert [(r["clock"], r["kind"]) for r in rows] == [(r.clock, r.kind) for r in expected]


def test_forks_prints_the_tree(dsn: str, story: Story, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["forks", story.fork, "--dsn", dsn]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{story.root}  [root")
    assert lines[1].startswith(f"  └ {story.fork}  [@2")
    assert "issue_refund=live" in lines[1] and lines[1].endswith("<")


def test_diff_prints_the_changes(
    dsn: str, story: Story, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", story.root, story.fork, "--dsn", dsn]) == 0
    out = capsys.readouterr().out
    assert f"common ancestor {story.root}; they part after cursor 2" in out
    assert "~ amount: 4200 -> 2100" in out
    assert '+ reason = "partial"' in out
    assert main(["diff", story.root, "no-such-channel", "--dsn", dsn]) == 1
    assert "channel no-such-channel does not exist" in capsys.readouterr().err


def test_timeline_follow_prints_new_events(dsn: str, story: Story) -> None:
    env = {**os.environ, "ACTAE_DSN": dsn, "PYTHONUNBUFFERED": "1"}
    follower = subprocess.Popen(
        [sys.executable, "-m", "actae", "timeline", story.fork, "--follow", "--json"],
        stdout=subprocess.PIPE, text=True, env=env,
    )
    try:
        assert follower.stdout is not None
        first = json.loads(follower.stdout.readline())
        assert first["kind"] == "event"
        time.sleep(0.5)
        with SyncActaeClient(dsn, max_size=1) as client:
            client.record_event(story.fork, "followed", {"ok": True})
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            row = json.loads(follower.stdout.readline())
            if row.get("event_type") == "followed":
                break
        else:
            pytest.fail("the followed event was not printed")
    finally:
        follower.terminate()
        follower.wait(10)
