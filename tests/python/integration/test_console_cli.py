"""actae timeline / forks / diff in a terminal, against a real database."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from decimal import Decimal

import psycopg
import pytest

from actae import SyncActaeClient
from actae.cli.main import main
from tests.python.support.console_harness import DIFF_PATHS, Story, make_story, states_to_diff


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


def test_timeline_limit_above_1000_is_one_page(
    dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    channel = f"cli-big-{uuid.uuid4().hex[:8]}"
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("select count(actae.record_event(%s, 'e', jsonb_build_object('i', i)))"
                     " from generate_series(1, 1200) as i", (channel,))
    assert main(["timeline", channel, "--dsn", dsn, "--json", "--limit", "1500"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 1200
    # A page of text with more after it says so on stderr, and how to see them.
    assert main(["timeline", channel, "--dsn", dsn, "--limit", "1000"]) == 0
    shown = capsys.readouterr()
    assert len(shown.out.splitlines()) == 1001  # the header and 1000 rows
    assert shown.err == "actae timeline: more rows follow clock 1000: --after 1000, or --all\n"
    assert main(["timeline", channel, "--dsn", dsn, "--limit", "1500"]) == 0
    assert capsys.readouterr().err == ""


def test_timeline_says_more_follow_when_a_clock_fills_the_page(
    dsn: str, story: Story, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pages never split a clock: a page can hold fewer or more rows than --limit and still
    have more after it (the story's first clocks hold several rows each)."""
    assert main(["timeline", story.root, "--dsn", dsn, "--json", "--all"]) == 0
    every = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert main(["timeline", story.root, "--dsn", dsn, "--limit", "2"]) == 0
    shown = capsys.readouterr()
    last = int(shown.out.splitlines()[-1].split()[0])
    assert last < every[-1]["clock"]
    assert shown.err == f"actae timeline: more rows follow clock {last}: --after {last}, or --all\n"


@pytest.mark.parametrize("argv", [
    ["console", "--port", "99999"],
    ["fork", "src", "--at", "99999999999999999999"],
    ["run", "start", "r", "--max-attempts", "99999999999"],
    ["tenant", "quota", "t", "--max-channels", "99999999999999999999"],
    ["timeline", "c", "--after", "9223372036854775807"],
])
def test_numbers_out_of_range_are_argparse_errors(argv: list[str], dsn: str) -> None:
    done = subprocess.run([sys.executable, "-m", "actae", *argv, "--dsn", dsn],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "must be" in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_follow_whose_connection_is_ended_prints_one_line(dsn: str) -> None:
    import psycopg

    channel = f"cli-end-{uuid.uuid4().hex[:8]}"
    with SyncActaeClient(dsn, max_size=1) as client:
        client.record_event(channel, "e", {})
    env = {k: v for k, v in os.environ.items() if k != "ACTAE_DSN"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "actae", "timeline", channel, "--follow", "--dsn",
         f"{dsn} application_name=follow-{channel}", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        assert json.loads(proc.stdout.readline())["event_type"] == "e"
        with psycopg.connect(dsn, autocommit=True) as admin:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                ended = admin.execute(
                    "select pg_terminate_backend(pid) from pg_stat_activity"
                    " where application_name = %s", (f"follow-{channel}",)).fetchall()
                if ended:
                    break
                time.sleep(0.1)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 1, err
        assert len(err.strip().splitlines()) == 1, err
        assert err.startswith("actae timeline:"), err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_diff_and_timeline_print_numbers_as_stored(
    dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """As the web console does: read as floats, 12345678901234567.25 and .5 printed as the
    same 1.2345678901234568e+16, and the diff showed a change between equal-looking values."""
    root, fork = f"cli-num-{uuid.uuid4().hex[:8]}", f"cli-num-{uuid.uuid4().hex[:8]}"
    with SyncActaeClient(dsn, max_size=1) as client:
        client.transition_state(root, "s", {}, {"price": 1}, 0)
        client.fork_channel(root, 1, fork)
        with client.pool.connection() as conn:
            for channel, price in ((root, "12345678901234567.25"), (fork, "12345678901234567.5")):
                conn.execute("select actae.transition_state(%s, 's', %s::jsonb, %s::jsonb, 1)",
                             (channel, f'{{"v": {price}}}', f'{{"price": {price}}}'))
    assert main(["diff", root, fork, "--dsn", dsn]) == 0
    assert "~ price: 12345678901234567.25 -> 12345678901234567.5" in capsys.readouterr().out
    assert main(["diff", root, fork, "--dsn", dsn, "--json"]) == 0
    change = json.loads(capsys.readouterr().out, parse_float=Decimal)["changes"][0]
    assert (change["a"], change["b"]) == (Decimal("12345678901234567.25"),
                                          Decimal("12345678901234567.5"))
    assert main(["timeline", root, "--dsn", dsn]) == 0
    assert '{"v": 12345678901234567.25}' in capsys.readouterr().out
    assert main(["timeline", root, "--dsn", dsn, "--json"]) == 0
    rows = [json.loads(line, parse_float=Decimal)
            for line in capsys.readouterr().out.splitlines()]
    assert rows[-1]["payload"] == {"v": Decimal("12345678901234567.25")}


def test_forks_json_prints_metadata_numbers_as_stored(
    dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """actae forks --json writes each channel's metadata numbers as stored (it read them as
    floats: 1.2345678901234568e+16, and 1e5000 as a JSON string)."""
    channel = f"forks-meta-{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("select actae.create_channel(%s, %s::jsonb)",
                     (channel, '{"price": 12345678901234567.25, "big": 1e5000}'))
    assert main(["forks", channel, "--json", "--dsn", dsn]) == 0
    out = capsys.readouterr().out
    assert '"price": 12345678901234567.25' in out, out
    assert '"big": 1' + "0" * 5000 in out, out[:400]
    rows = json.loads(out, parse_float=Decimal, parse_int=Decimal)
    assert rows[0]["metadata"]["price"] == Decimal("12345678901234567.25")


def test_diff_paths_read_unambiguously_and_indexes_in_order(
    dsn: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The key "a.b" and the key b inside a were both printed a.b; array indexes came in
    text order (arr.10 before arr.2)."""
    a, b = states_to_diff(dsn, "diff-path")
    assert main(["diff", a, b, "--dsn", dsn]) == 0
    out = capsys.readouterr().out
    lines = [line.split(" ", 2)[1].rstrip(":") for line in out.splitlines()
             if line[:2] in ("+ ", "- ", "~ ")]
    assert lines == DIFF_PATHS, out
