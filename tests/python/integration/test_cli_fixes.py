"""The ``actae`` command line on bad input and hostile data: one clear line instead of a
traceback, agent strings escaped on the terminal, one JSON document, Ctrl-C on --follow."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import httpx
import psycopg
import pytest

from actae.cli.main import main
from actae.pg import free_port
from tests.python.support.databases import empty_database

# The command line's own behaviour (output, statuses, signals) over the SQL the other suites
# run on every server: make test runs it in its PostgreSQL 18 pass only.
pytestmark = pytest.mark.second

ACTAE = Path(sys.executable).parent / "actae"
UNREACHABLE = "host=/nonexistent-actae-socket port=1 connect_timeout=2"


def run(dsn: str, *args: str | bytes, cwd: Path | None = None
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([os.fsencode(str(ACTAE)), *(os.fsencode(a) for a in args)],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "ACTAE_DSN": dsn}, cwd=cwd)


def in_process(capsys: pytest.CaptureFixture[str], *args: str
               ) -> subprocess.CompletedProcess[str]:
    """actae.cli.main.main(args) in this process, as run() reports a process: status (an
    argparse refusal's exit status too), stdout and stderr."""
    try:
        status = main(list(args))
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 1
    captured = capsys.readouterr()
    return subprocess.CompletedProcess(list(args), status, captured.out, captured.err)


def one_line(done: subprocess.CompletedProcess[str], code: int) -> str:
    assert done.returncode == code, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def usage_error(done: subprocess.CompletedProcess[str]) -> str:
    """argparse's refusal: usage, then one error line (returned), status 2."""
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr and done.stderr.startswith("usage: ")
    return done.stderr.strip().splitlines()[-1]


def test_console_checks_the_database_before_serving(dsn: str) -> None:
    line = one_line(run(dsn, "console", "--dsn", UNREACHABLE, "--port", "1"), 1)
    assert line.startswith("actae console: cannot connect to the database")
    # the test database's superuser can write: refused without --allow-writer
    line = one_line(run(dsn, "console", "--port", "1"), 1)
    assert "can write to the ledger" in line and "--allow-writer" in line
    # a Host pattern the Host check cannot use: one line, before anything starts
    line = one_line(run(dsn, "console", "--port", "1", "--allowed-host", "a*.example"), 2)
    assert "--allowed-host 'a*.example'" in line
    # a database never migrated, --allow-writer or not: one line (it served errors)
    with empty_database(dsn) as empty:
        line = one_line(run(dsn, "console", "--dsn", empty, "--port", "1", "--allow-writer"), 1)
    assert line.endswith("(is this database migrated? run actae migrate)"), line


def test_console_says_where_it_serves(dsn: str) -> None:
    """`actae console` printed nothing when it started (uvicorn's line is below its default
    log level): now one line on stderr with its URL, once it answers."""
    port = free_port()
    process = subprocess.Popen(
        [str(ACTAE), "console", "--dsn", dsn, "--port", str(port), "--allow-writer"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        ready, _, _ = select.select([process.stderr], [], [], 20)
        assert ready, "nothing on stderr within 20 s"
        line = process.stderr.readline()
        assert line == f"actae console: serving http://127.0.0.1:{port}/ (Ctrl-C stops it)\n"
        assert httpx.get(f"http://127.0.0.1:{port}/", timeout=5).status_code == 200
    finally:
        process.terminate()
        process.communicate(timeout=20)


def test_agent_strings_are_escaped_in_text_output(dsn: str) -> None:
    channel = f"cf-esc-{uuid.uuid4().hex[:8]}"
    hostile = "ev\x1b]0;pwned\x07\n1  0  event  forged\x9b31m\x7f"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("select actae.record_event(%s, %s, '{}')", (channel, hostile))
        conn.execute("select actae.claim_execution(%s, %s, %s, '{}')",
                     (channel, "key\r\x1b[2J", "tool\x01"))
    done = run(dsn, "timeline", channel)
    assert done.returncode == 0, done.stderr
    assert not any(c in done.stdout for c in "\x1b\x07\x9b\x7f\r\x01")
    assert len(done.stdout.strip().splitlines()) == 3  # header, event, claim: none forged
    assert r"ev\x1b]0;pwned\x07\x0a1  0  event  forged\x9b31m\x7f" in done.stdout
    assert r"tool\x01 key\x0d\x1b[2J" in done.stdout
    forks = run(dsn, "forks", channel)
    assert forks.returncode == 0 and forks.stdout.startswith(channel)
    # --json stays JSON (its own escaping)
    lines = run(dsn, "timeline", channel, "--json").stdout.splitlines()
    rows = [json.loads(line) for line in lines]
    assert rows[0]["event_type"] == hostile
    # the one-line confirmations name the channel escaped too
    odd = f"cf-esc-\x1b[2J{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("select actae.create_channel(%s)", (odd,))
    for args in (("channel", "key-ttl", odd, "1 day"), ("channel", "close", odd)):
        done = run(dsn, *args)
        assert done.returncode == 0 and "\x1b" not in done.stdout, done
        assert r"cf-esc-\x1b[2J" in done.stdout


def test_errors_quoting_agent_strings_are_escaped(dsn: str) -> None:
    line = one_line(run(dsn, "timeline", "nope\x1b[31m\x9bforged"), 1)
    assert "\x1b" not in line and r"nope\x1b[31m\x9bforged" in line


def test_timeline_follow_ends_quietly_on_ctrl_c(dsn: str) -> None:
    channel = f"cf-follow-{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("select actae.record_event(%s, 'start', '{}')", (channel,))
    process = subprocess.Popen(
        [str(ACTAE), "timeline", channel, "--follow"], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env={**os.environ, "ACTAE_DSN": dsn})
    try:
        assert process.stdout is not None
        assert process.stdout.readline().startswith("CLOCK")  # following now
        time.sleep(0.3)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130
    assert err == "", err
    assert "Traceback" not in out


def test_ctrl_c_ends_a_waiting_command_quietly_and_cancels_its_statement(dsn: str) -> None:
    """Ctrl-C while ``actae executions`` waits for a lock: status 130, no traceback, and
    the server is no longer waiting for that statement (psycopg cancelled it)."""
    with psycopg.connect(dsn) as holder:
        holder.execute("lock table actae.executions in access exclusive mode")
        process = subprocess.Popen(
            [str(ACTAE), "executions"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, env={**os.environ, "ACTAE_DSN": dsn})
        try:
            waiting = "select count(*) from pg_locks where not granted and pid <> %s"
            with psycopg.connect(dsn, autocommit=True) as watcher:
                deadline = time.monotonic() + 20
                while time.monotonic() < deadline:
                    row = watcher.execute(waiting, (holder.info.backend_pid,)).fetchone()
                    if row is not None and row[0] > 0:
                        break
                    time.sleep(0.05)
                assert row is not None and row[0] > 0, "the command never waited for the lock"
                process.send_signal(signal.SIGINT)
                out, err = process.communicate(timeout=20)
                row = watcher.execute(waiting, (holder.info.backend_pid,)).fetchone()
                assert row is not None and row[0] == 0, "the statement still waits"
        finally:
            if process.poll() is None:
                process.kill()
                process.communicate()
    assert process.returncode == 130, err
    assert err == "", err
    assert "Traceback" not in out


@pytest.mark.parametrize("args", [
    [b"--dsn", b"ch\xff", b"status"],
    [b"tenant", b"create", b"ch\xff"],
])
def test_an_argument_that_is_not_utf8_is_one_line(dsn: str, args: list[bytes]) -> None:
    line = one_line(run(dsn, *args), 2)
    assert line == r"actae: an argument is not valid UTF-8: ch\xff"


def test_migrate_json_with_role_settings_is_one_document(dsn: str) -> None:
    login = f"cf_login_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f"create role {login} login")
        try:
            done = run(dsn, "migrate", "--json", "--role-settings", login)
            assert done.returncode == 0, done.stderr
            report = json.loads(done.stdout)
            assert isinstance(report["applied"], list)
            assert report["role_settings"]["logins"] == [login]
            assert "statement_timeout" in report["role_settings"]["settings"]
        finally:
            database = conn.info.dbname
            conn.execute(f'alter role {login} in database "{database}" reset all')
            conn.execute(f"drop role {login}")
    plain = run(dsn, "migrate", "--json")  # without an option: the array, as before
    assert plain.returncode == 0 and isinstance(json.loads(plain.stdout), list)


def test_run_command_errors_without_sqlstate_have_no_none_suffix(dsn: str) -> None:
    line = one_line(run(dsn, "runs", "--dsn", UNREACHABLE), 1)
    assert line.startswith("actae runs: cannot connect")
    assert not line.endswith("(None)")


def test_negative_counts_are_refused(dsn: str, capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """--max-batches and --events take 0 or more (0: until done / no events); a negative one is
    argparse's one line naming the option, status 2 (it was accepted and did nothing)."""
    monkeypatch.setenv("ACTAE_DSN", dsn)

    def here(*args: str) -> subprocess.CompletedProcess[str]:
        """The command run in this process (the entry point's own runs are above)."""
        return in_process(capsys, *args)

    channel = f"cf-neg-{uuid.uuid4().hex[:8]}"
    for i in range(3):
        assert here("event", "send", channel, f"ev{i}", "--create").returncode == 0
    line = usage_error(here("purge", "--older-than", "30 days", "--max-batches", "-1"))
    assert line == "actae purge: error: argument --max-batches: must be 0 or more, got -1"
    line = usage_error(here("channel", "show", channel, "--events", "-2"))
    assert line == "actae channel show: error: argument --events: must be 0 to 100000, got -2"
    # Past the server's own limits: the option is named, not the function's argument.
    for args, option, value in (
        (("channel", "show", channel, "--events", "200000"), "--events", "200000"),
        (("channel", "show", channel, "--limit", "0"), "--limit", "0"),
        (("executions", "--limit", "-3"), "--limit", "-3"),
        (("purge", "--older-than", "1 day", "--batch-size", "0"), "--batch-size", "0"),
        (("runs", "--limit", "200000"), "--limit", "200000"),
    ):
        line = usage_error(here(*args))
        assert line.endswith(f"argument {option}: must be {0 if option == '--events' else 1}"
                             f" to 100000, got {value}"), line
    # The console's reads take at most 10000 rows.
    for args in (("timeline", channel, "--limit", "0"), ("forks", channel, "--limit", "-1"),
                 ("diff", channel, channel, "--limit", "10001")):
        line = usage_error(here(*args))
        assert line.endswith(f"argument --limit: must be 1 to 10000, got {args[-1]}"), line
    line = usage_error(here("channel", "show", channel, "--events", "two"))
    assert line.endswith("argument --events: invalid int value: 'two'"), line
    # 0 keeps its meaning: no events; purge until done (nothing is 1000 years old)
    none = here("channel", "show", channel, "--events", "0")
    assert none.returncode == 0, none.stderr
    assert "LAST EVENTS (0 of 3)" in none.stdout
    assert none.stdout.split("LAST EVENTS (0 of 3)")[1].split()[0] == "(none)"
    two = here("channel", "show", channel, "--events", "2", "--json")
    assert two.returncode == 0, two.stderr
    assert [e["event_type"] for e in json.loads(two.stdout)["events"]] == ["ev1", "ev2"]
    done = here("purge", "--older-than", "1000 years", "--max-batches", "0")
    assert done.returncode == 0, done.stderr
    assert "more is left" not in done.stdout
    assert "0: none" in here("channel", "show", "--help").stdout
    assert "0: until done" in here("purge", "--help").stdout


def test_worker_target_that_is_not_a_worker_factory_is_one_line(
    dsn: str, tmp_path: Path,
) -> None:
    """A callable that needs arguments is not a Worker factory: one line naming the target,
    status 2 (it was a TypeError traceback); a factory that raises says what it raised and
    where (status 2, one line)."""
    line = one_line(run(dsn, "worker", "json:loads", cwd=tmp_path), 2)
    assert line.startswith("actae worker: json:loads is not an actae.Worker"), line
    assert "missing a required argument: 's'" in line
    line = one_line(run(dsn, "worker", "json:JSONDecoder", cwd=tmp_path), 2)
    assert line == "actae worker: json:JSONDecoder is not an actae.Worker"
    module = tmp_path / "cf_broken_factory.py"
    module.write_text("def make():\n    raise RuntimeError('no WORKER_QUEUE set')\n")
    line = one_line(run(dsn, "worker", "cf_broken_factory:make", cwd=tmp_path), 2)
    assert line == (f"actae worker: cf_broken_factory:make() raised RuntimeError: "
                    f"no WORKER_QUEUE set (at {module}:2)"), line
