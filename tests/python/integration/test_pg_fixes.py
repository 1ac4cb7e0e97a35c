"""actae.pg and actae demo on real servers and real signals: a throwaway server whose
process gets SIGTERM/SIGHUP (or SIGKILL: its reaper cleans up) leaves nothing behind, TCP
connections need the password, and the demo on an unmigrated database (or with a worker
that dies early) says so in one line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict

from actae import pg
from tests.python.support.databases import empty_database
from tests.python.support.helpers import alive

REPO = Path(__file__).resolve().parents[3]
NO_PASSFILE = "/nonexistent/actae-pgpass"  # so no ~/.pgpass can supply a password


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in {"ACTAE_DSN", "ACTAE_WITH_DB", "PGPASSWORD", "PGPASSFILE"}}
    return {**env, "PGPASSFILE": NO_PASSFILE, **extra}


def wait_for_file(proc: subprocess.Popen[str], path: Path) -> Path:
    """``path`` once the test pytest runs has written it (60 s at most)."""
    deadline = time.monotonic() + 60
    while not path.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert path.exists(), proc.communicate(timeout=30)[0] if proc.poll() is not None else ""
    time.sleep(0.2)  # let the write finish
    return path


def assert_gone(postmaster: int, folder: Path) -> None:
    """The throwaway server's postmaster exits (within 10 s) and its folder is gone."""
    deadline = time.monotonic() + 10
    while alive(postmaster) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(postmaster), "the server outlived the signal"
    assert not folder.exists(), "the throwaway folder was left behind"


@pytest.fixture
def unmigrated(dsn: str) -> Iterator[str]:
    """An empty (never migrated) database on the test server, dropped afterwards."""
    with empty_database(dsn, "actae_pgfix") as scratch:
        yield scratch


# Signals and processes, the same with any server binaries: make test runs it in its
# PostgreSQL 18 pass only (marker `second`).
@pytest.mark.second
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_throwaway_killed_by_signal_stops_its_server_and_removes_its_folder(
        signum: signal.Signals) -> None:
    script = ("import time; from actae.pg import throwaway\n"
              "with throwaway() as dsn:\n    print(dsn, flush=True)\n    time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=clean_env(), cwd=REPO)
    folder: Path | None = None
    postmaster = 0
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line, proc.stderr.read() if proc.stderr else "exited"
        folder = Path(str(conninfo_to_dict(line.strip())["host"])).parent
        postmaster = int((folder / "pgdata" / "postmaster.pid").read_text().split()[0])
        assert alive(postmaster)
        proc.send_signal(signum)
        # killed by the signal, after its own clean-up (SIGKILL: its reaper's)
        assert proc.wait(timeout=30) == -signum
        assert_gone(postmaster, folder)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if folder is not None and folder.exists():  # never leave a server behind
            pg.Server(folder).remove()


PLUGIN_TESTS = """
import time
from pathlib import Path

def test_0():
    assert 1 == 2, "EARLY FAILURE"

def test_a(actae_dsn):
    Path("a-started").write_text(actae_dsn)
    time.sleep(60)

def test_b(actae_dsn):
    Path("b-ran").write_text("")

def test_c(actae_dsn):
    Path("c-ran").write_text("")
"""


@pytest.mark.second  # see test_throwaway_killed_by_signal_...
def test_sigterm_to_pytest_stops_the_session_and_its_throwaway_server(tmp_path: Path) -> None:
    """The plugin's session throwaway(): SIGTERM mid-test ends the session (no later test
    runs, not recorded as a failure), the server is stopped, its folder removed, pytest
    reports the earlier failure and its summary, and then dies of the signal."""
    (tmp_path / "test_slow.py").write_text(PLUGIN_TESTS)
    env = {k: v for k, v in clean_env().items() if k != "ACTAE_TEST_DSN"}
    proc = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "-p", "no:randomly", "test_slow.py"], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    folder: Path | None = None
    postmaster = 0
    try:
        started = wait_for_file(proc, tmp_path / "a-started")
        folder = Path(str(conninfo_to_dict(started.read_text())["host"])).parent
        postmaster = int((folder / "pgdata" / "postmaster.pid").read_text().split()[0])
        assert alive(postmaster)
        proc.send_signal(signal.SIGTERM)
        out = proc.communicate(timeout=60)[0]
        assert proc.returncode == -signal.SIGTERM, out
        assert not (tmp_path / "b-ran").exists() and not (tmp_path / "c-ran").exists(), out
        assert "SystemExit" not in out, out
        assert "EARLY FAILURE" in out and "1 failed" in out, out
        assert_gone(postmaster, folder)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if folder is not None and folder.exists():
            pg.Server(folder).remove()


@pytest.mark.second  # see test_throwaway_killed_by_signal_...
def test_sigterm_to_pg_run_stops_the_server_it_started(tmp_path: Path) -> None:
    """`python -m actae.pg run -- CMD` that started the server: SIGTERM to it (only) is passed
    on to CMD, the server is stopped, and run dies of the signal."""
    data = tmp_path / "repo"
    script = ("import os, signal, sys, time; from pathlib import Path\n"
              "signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))\n"
              "Path('cmd-started').write_text(os.environ['ACTAE_DSN'])\n"
              "try:\n    time.sleep(60)\nfinally:\n    Path('cmd-ended').write_text('')\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "actae.pg", "--data", str(data), "run", "--",
         sys.executable, "-c", script], cwd=tmp_path,
        env=clean_env(ACTAE_PG_PORT=str(pg.free_port()), PYTHONPATH=str(REPO / "python")),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    postmaster = 0
    try:
        started = tmp_path / "cmd-started"
        deadline = time.monotonic() + 60
        while not started.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists(), proc.communicate(timeout=30)[0] if proc.poll() is not None else ""
        server = pg.Server(data)  # as root, data may be swapped for a /tmp folder
        postmaster = int((server.data / "postmaster.pid").read_text().split()[0])
        assert alive(postmaster)
        proc.send_signal(signal.SIGTERM)
        out = proc.communicate(timeout=60)[0]
        assert proc.returncode == -signal.SIGTERM, out
        assert (tmp_path / "cmd-ended").exists(), "CMD was not told to stop"
        deadline = time.monotonic() + 10
        while alive(postmaster) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(postmaster), "the server outlived the signal"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        pg.Server(data).remove()


@pytest.mark.parametrize("value", ["\u00b2", "\u0663", "12\u00b3"])
def test_non_ascii_digit_port_is_bad_setting(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACTAE_PG_PORT", value)
    with pytest.raises(pg.BadSetting, match="ACTAE_PG_PORT"):
        pg._env_port()  # pyright: ignore[reportPrivateUsage]


def test_tcp_needs_the_password_and_the_handed_out_dsns_connect(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                ) -> None:
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", NO_PASSFILE)
    server = pg.Server(tmp_path / "srv", port=pg.free_port())  # listens on 127.0.0.1
    try:
        socket_dsn = server.start().create_database()
        port = server.running_port()
        with pytest.raises(psycopg.OperationalError, match="password"):
            psycopg.connect(f"host=127.0.0.1 port={port} user=postgres dbname=actae",
                            connect_timeout=5).close()
        assert (server.password_file.stat().st_mode & 0o777) == 0o600
        for dsn in (socket_dsn, server.tcp_url(), server.url()):
            with psycopg.connect(dsn, connect_timeout=5) as conn:
                assert conn.execute("select current_user").fetchone() == ("postgres",)
    finally:
        server.remove()


def test_dev_prints_a_tcp_dsn_that_needs_its_password(tmp_path: Path) -> None:
    port = pg.free_port()
    script = ("import sys; from pathlib import Path; from actae.pg import dev_main;"
              "sys.exit(dev_main(Path(sys.argv[1]), int(sys.argv[2])))")
    proc = subprocess.Popen([sys.executable, "-u", "-c", script, str(tmp_path / "dev"),
                             str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=clean_env())
    try:
        assert proc.stdout is not None
        url = ""
        while not url:
            line = proc.stdout.readline()
            assert line, proc.stderr.read() if proc.stderr else "dev_main exited"
            if line.startswith("export ACTAE_DSN="):
                url = line.strip().split("=", 1)[1].strip("'")
        with psycopg.connect(url, connect_timeout=5) as conn:
            assert conn.execute("select count(*) > 0 from actae.schema_migrations"
                                ).fetchone() == (True,)
        no_password = url.replace(":" + url.split("@")[0].split(":")[-1] + "@", "@")
        assert no_password == f"postgresql://postgres@127.0.0.1:{port}/actae"
        with pytest.raises(psycopg.OperationalError, match="password"):
            psycopg.connect(no_password + "?passfile=" + NO_PASSFILE, connect_timeout=5).close()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        pg.Server(tmp_path / "dev").remove()


@pytest.mark.parametrize("how", ["env", "flag"])
def test_demo_on_an_unmigrated_database_is_one_line(unmigrated: str, how: str) -> None:
    argv = ["demo", "crash"] if how == "env" else ["--dsn", unmigrated, "demo", "crash"]
    done = subprocess.run([sys.executable, "-m", "actae", *argv], capture_output=True,
                          text=True, env=clean_env(ACTAE_DSN=unmigrated) if how == "env"
                          else clean_env(), timeout=60, cwd=REPO)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    dbname = conninfo_to_dict(unmigrated)["dbname"]
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"actae demo: database {dbname} ")
    assert "is not migrated: run `actae migrate`" in lines[0]
    assert done.stdout == ""


def test_crash_story_reports_a_worker_that_dies_before_the_charge(unmigrated: str) -> None:
    # Called past the migration check, worker A fails at its first claim and exits on its
    # own: the demo says so instead of killing a process that is gone.
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from actae.demo import crash;"
         " sys.exit(crash.main(sys.argv[1]))", unmigrated],
        capture_output=True, text=True, env=clean_env(), timeout=60, cwd=REPO)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert "[worker A, pid" in done.stderr and "failed:" in done.stderr
    assert "worker A (pid" in done.stdout and "failed with exit status 1" in done.stdout
    assert "INVARIANT FAILED" in done.stdout


def test_actae_demo_crash_prints_no_runtime_warning(dsn: str) -> None:
    done = subprocess.run([sys.executable, "-W", "default", "-m", "actae", "demo", "crash"],
                          capture_output=True, text=True, env=clean_env(ACTAE_DSN=dsn),
                          timeout=60, cwd=REPO)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "INVARIANT HOLDS" in done.stdout
    assert "RuntimeWarning" not in done.stderr, done.stderr


FRESH_TESTS = """
import time
from pathlib import Path

import psycopg
from psycopg import sql

def test_fresh(actae_fresh_dsn):
    with psycopg.connect(actae_fresh_dsn) as conn:
        name = conn.execute("select current_database()").fetchone()[0]
    Path("fresh-started").write_text(name)
    time.sleep(60)
"""


@pytest.mark.second  # see test_throwaway_killed_by_signal_...
def test_sigterm_to_pytest_on_a_given_database_drops_the_tests_databases(
    tmp_path: Path, dsn: str
) -> None:
    """With --actae-dsn, SIGTERM mid-test still runs the teardowns: the test's own database
    is dropped, and pytest dies of the signal."""
    (tmp_path / "test_fresh.py").write_text(FRESH_TESTS)
    env = {k: v for k, v in clean_env().items() if k != "ACTAE_TEST_DSN"}
    proc = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "-p", "no:randomly", "--actae-dsn", dsn, "test_fresh.py"],
                            cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    name = ""
    try:
        started = wait_for_file(proc, tmp_path / "fresh-started")
        name = started.read_text()
        proc.send_signal(signal.SIGTERM)
        out = proc.communicate(timeout=60)[0]
        assert proc.returncode == -signal.SIGTERM, out
        with psycopg.connect(dsn, autocommit=True) as conn:
            left = conn.execute("select 1 from pg_database where datname = %s", (name,))
            assert left.fetchone() is None, out
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if name:
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute(sql.SQL("drop database if exists {} with (force)").format(
                    sql.Identifier(name)))
