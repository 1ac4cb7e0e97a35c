"""actae.pg and actae demo on real servers and real signals: a throwaway server stopped by
SIGTERM/SIGHUP leaves nothing behind, TCP connections need the password, and the demo on an
unmigrated database (or with a worker that dies early) says so in one line."""

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
from psycopg.conninfo import conninfo_to_dict

from actae import pg
from tests.python.support.databases import empty_database

REPO = Path(__file__).resolve().parents[3]
NO_PASSFILE = "/nonexistent/actae-pgpass"  # so no ~/.pgpass can supply a password


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in {"ACTAE_DSN", "ACTAE_WITH_DB", "PGPASSWORD", "PGPASSFILE"}}
    return {**env, "PGPASSFILE": NO_PASSFILE, **extra}


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture
def unmigrated(dsn: str) -> Iterator[str]:
    """An empty (never migrated) database on the test server, dropped afterwards."""
    with empty_database(dsn, "actae_pgfix") as scratch:
        yield scratch


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
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
        assert proc.wait(timeout=30) == 128 + signum
        deadline = time.monotonic() + 10
        while alive(postmaster) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(postmaster), "the server outlived the signal"
        assert not folder.exists(), "the throwaway folder was left behind"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if folder is not None and folder.exists():  # never leave a server behind
            pg.Server(folder).remove()


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
