"""`actae runs`, `actae run start|show|cancel`, `actae event send` and `actae worker` against a
real database, through the command line's own entry point."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from actae import SyncActaeClient
from actae.cli.main import main

REPO = Path(__file__).resolve().parents[3]


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> object:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def test_start_show_list_event_cancel(dsn: str, unique: Callable[..., str],
                                      capsys: pytest.CaptureFixture[str]) -> None:
    queue, channel = unique("q"), unique("run")
    started = _json(capsys, "run", "start", channel, "refund", "--input", '{"order": 1}',
                    "--queue", queue, "--dsn", dsn, "--json")
    assert isinstance(started, dict) and started["outcome"] == "started"
    shown = _json(capsys, "run", "show", channel, "--dsn", dsn, "--json")
    assert isinstance(shown, dict) and shown["status"] == "queued"
    assert shown["claim_token"] is None
    listed = _json(capsys, "runs", "--queue", queue, "--status", "queued", "--dsn", dsn,
                   "--json")
    assert isinstance(listed, list) and [r["channel_id"] for r in listed] == [channel]
    sent = _json(capsys, "event", "send", channel, "approval", "--payload",
                 '{"approved": true}', "--operation-id", "ok", "--dsn", dsn, "--json")
    assert isinstance(sent, dict) and sent["outcome"] == "recorded"
    again = _json(capsys, "event", "send", channel, "approval", "--payload",
                  '{"approved": true}', "--operation-id", "ok", "--dsn", dsn, "--json")
    assert isinstance(again, dict) and again["outcome"] == "replayed"
    assert main(["run", "cancel", channel, "--reason", "test", "--dsn", dsn]) == 0
    assert f"run {channel} cancelled: cancelled" in capsys.readouterr().out
    assert main(["run", "start", channel, "other", "--dsn", dsn]) == 1
    assert "[AC409]" in capsys.readouterr().err
    # The same start again replays the ended run, which is due at no time (it printed None).
    assert main(["run", "start", channel, "refund", "--input", '{"order": 1}', "--queue",
                 queue, "--dsn", dsn]) == 0
    assert capsys.readouterr().out == f"run {channel} replayed: cancelled\n"
    assert main(["event", "send", channel, "x", "--payload", "{bad", "--dsn", dsn]) == 2
    capsys.readouterr()
    # Python's json takes NaN and Infinity; JSON does not: a usage error, before any call.
    assert main(["run", "start", channel + "-nan", "refund", "--input", '{"a": NaN}',
                 "--dsn", dsn]) == 2
    assert "--input is not valid JSON: NaN is not a JSON number" in capsys.readouterr().err
    # A misspelled channel is refused, nothing recorded; --create records it there.
    typo = channel + "-typo"
    assert main(["event", "send", typo, "approval", "--dsn", dsn]) == 1
    err = capsys.readouterr().err
    assert err == (f"actae event: channel {typo} does not exist (is the id misspelled?"
                   " --create records the event in a new channel)\n")
    assert main(["channel", "show", typo, "--dsn", dsn]) == 1
    capsys.readouterr()
    assert main(["event", "send", typo, "approval", "--create", "--dsn", dsn]) == 0
    assert capsys.readouterr().out == f"event approval recorded in {typo} at cursor 1\n"
    assert main(["runs", "--queue", queue, "--dsn", dsn]) == 0
    assert "cancelled" in capsys.readouterr().out


def test_json_given_on_the_command_line_is_stored_as_written(
        dsn: str, conn: psycopg.Connection, unique: Callable[..., str],
        capsys: pytest.CaptureFixture[str]) -> None:
    """--payload and --input keep their numbers: read into Python floats first, an amount
    of 19.999999999999999999 was stored as 20.0, and 1e400 refused."""
    given = '{"amount": 19.999999999999999999, "ref": 12345678901234567890.5, "big": 1e400}'
    channel = unique("exact")
    assert main(["event", "send", channel, "n", "--create", "--payload", given,
                 "--dsn", dsn]) == 0
    assert main(["run", "start", channel + "-run", "refund", "--input", given,
                 "--dsn", dsn]) == 0
    capsys.readouterr()
    same = conn.execute(
        "select (select e.payload from actae.events as e where e.channel_id = %s)"
        " = %s::jsonb, (select r.input from actae.runs as r where r.channel_id = %s)"
        " = %s::jsonb", (channel, given, channel + "-run", given)).fetchone()
    assert same == (True, True)
    stored = conn.execute("select payload ->> 'amount' from actae.events"
                          " where channel_id = %s", (channel,)).fetchone()
    assert stored == ("19.999999999999999999",)
    # Nested deeper than Python reads: the server's own refusal, in one line (a traceback).
    deep = "[" * 5000 + "]" * 5000
    assert main(["event", "send", channel, "n", "--payload", deep, "--dsn", dsn]) == 1
    assert "nested at most 512 levels deep [AC400]" in capsys.readouterr().err


def test_worker_command_runs_a_module_worker(dsn: str, unique: Callable[..., str],
                                             tmp_path: Path) -> None:
    queue, channel = unique("q"), unique("run")
    (tmp_path / "cli_agents.py").write_text(
        "import os\nfrom actae import Worker\n"
        f"worker = Worker(os.environ['ACTAE_DSN'], queue={queue!r}, poll_interval=0.1)\n"
        "@worker.agent('echo')\nasync def echo(run):\n    return {'echo': run.input}\n")
    env = {**os.environ, "ACTAE_DSN": dsn,
           "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-m", "actae", "worker", "cli_agents:worker"],
                            env=env, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    try:
        with SyncActaeClient(dsn) as client:
            client.start_run(channel, "echo", [1, 2], queue)
            deadline = time.monotonic() + 30
            while client.get_run(channel).status != "completed":
                assert time.monotonic() < deadline
                time.sleep(0.1)
            assert client.get_run(channel).result == {"echo": [1, 2]}
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "'completed': 1" in err
    assert main(["worker", "no_such_module:worker"]) == 2
