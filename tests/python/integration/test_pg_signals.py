"""`actae dev` stopped by signals as `timeout`, a terminal or a supervisor sends them (SIGTERM
to it and again to its process group, SIGHUP) stops the server it started before it exits;
a second `actae dev` on the same folder says how to stop the one running; a failed start
quotes only its own log lines. Real processes, real signals, real PostgreSQL."""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from actae import pg
from tests.python.support.helpers import alive

# Signals and pg_ctl, not the server's version: make test's first pass only.
pytestmark = pytest.mark.once

REPO = Path(__file__).resolve().parents[3]


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items()
            if k not in {"ACTAE_DSN", "ACTAE_WITH_DB", "ACTAE_PG_PORT"}}


def children(pid: int) -> set[int]:
    try:
        return {int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()}
    except OSError:
        return set()


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def wait_for_dsn(proc: subprocess.Popen[str]) -> None:
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline()
        assert line, proc.communicate(timeout=30)[1] if proc.poll() is not None else "no output"
        if line.startswith("export ACTAE_DSN="):
            return


def wait_for_pg_ctl(proc: subprocess.Popen[str], before: set[int]) -> None:
    """Until actae dev runs pg_ctl (a child not among ``before``) or exits (30 s at most)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and proc.poll() is None:
        if any("pg_ctl" in command_line(c) for c in children(proc.pid) - before):
            return


def dev(folder: Path, port: int, *prefix: str) -> subprocess.Popen[str]:
    """`actae dev` (behind ``prefix``, e.g. `timeout 120`), the leader of its own process
    group as under `timeout`."""
    return subprocess.Popen([*prefix, sys.executable, "-u", "-m", "actae", "dev", "--data-dir",
                             str(folder), "--port", str(port)], cwd=REPO, env=clean_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


@pytest.fixture
def folder(tmp_path: Path) -> Iterator[Path]:
    """The dev server's folder; whatever a test leaves running there is stopped, and removed."""
    path = tmp_path / "dev"
    yield path
    pg.Server(path).remove()


def postmaster_of(folder: Path) -> int:
    return int((pg.Server(folder).data / "postmaster.pid").read_text().split()[0])


def assert_stopped(folder: Path, postmaster: int) -> None:
    deadline = time.monotonic() + 10
    while alive(postmaster) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not alive(postmaster), "actae dev exited and left its server running"


def test_sigterm_to_timeout_stops_the_dev_server(folder: Path) -> None:
    """`timeout 120 actae dev` sent SIGTERM: timeout passes it on to actae dev and then to the
    whole process group (actae dev gets it twice, its children once). The server is stopped
    and actae dev dies of the signal, which timeout reports as its own."""
    timeout = shutil.which("timeout")
    if timeout is None:
        pytest.skip("coreutils timeout is not installed")
    for _ in range(3):  # the race was lost most of the time, not always
        proc = dev(folder, pg.free_port(), timeout, "120")
        try:
            wait_for_dsn(proc)
            postmaster = postmaster_of(folder)
            time.sleep(1.3)  # in the wait loop, where a `pg_ctl status` child comes and goes
            proc.send_signal(signal.SIGTERM)  # to timeout
            _, err = proc.communicate(timeout=60)
            assert proc.returncode in (-signal.SIGTERM, 128 + signal.SIGTERM), err
            assert_stopped(folder, postmaster)
            assert not (pg.Server(folder).data / "postmaster.pid").exists()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def signalled_twice(folder: Path, signum: int, *, first_to_group: bool) -> tuple[int, str]:
    """actae dev sent ``signum`` (to itself, or to its process group), then, once it runs
    pg_ctl to stop its server, ``signum`` again to its whole group (as timeout or a terminal
    do): asserts it was still stopping at the second signal, its server had stopped by the
    time it exited, and the postmaster is gone; returns its exit status and stderr."""
    proc = dev(folder, pg.free_port())
    try:
        wait_for_dsn(proc)
        data = pg.Server(folder).data
        postmaster = postmaster_of(folder)
        before = children(proc.pid)
        if first_to_group:
            os.killpg(proc.pid, signum)
        else:
            proc.send_signal(signum)
        wait_for_pg_ctl(proc, before)
        assert proc.poll() is None, "actae dev exited before it stopped its server"
        os.killpg(proc.pid, signum)  # the group, children included
        _, err = proc.communicate(timeout=60)
        stopped_first = not (data / "postmaster.pid").exists()
        assert stopped_first, "actae dev was killed before its server had stopped"
        assert_stopped(folder, postmaster)
        return proc.returncode, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_second_sigterm_to_the_group_during_the_stop_is_ignored(folder: Path) -> None:
    """SIGTERM, then, once actae dev runs pg_ctl to stop its server, SIGTERM to its whole
    process group: actae dev finishes the stop (the server is gone by the time it exits),
    then dies of SIGTERM."""
    status, err = signalled_twice(folder, signal.SIGTERM, first_to_group=False)
    assert status == -signal.SIGTERM, err


def test_second_ctrl_c_during_the_stop_is_ignored(folder: Path) -> None:
    """Ctrl-C, then Ctrl-C again to the whole group once actae dev runs pg_ctl to stop its
    server: the stop finishes, actae dev exits 0, no traceback."""
    status, err = signalled_twice(folder, signal.SIGINT, first_to_group=True)
    assert status == 0, err
    assert "Traceback" not in err, err


def test_sighup_stops_the_dev_server(folder: Path) -> None:
    """A closed terminal (SIGHUP) stops the server too; actae dev then dies of SIGHUP."""
    proc = dev(folder, pg.free_port())
    try:
        wait_for_dsn(proc)
        postmaster = postmaster_of(folder)
        proc.send_signal(signal.SIGHUP)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == -signal.SIGHUP, err
        assert_stopped(folder, postmaster)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_second_dev_on_a_running_folder_says_how_to_stop_it(folder: Path) -> None:
    """A server left running in the folder: a second actae dev refuses in one line that
    gives the command stopping it, and that command does."""
    proc = dev(folder, pg.free_port())
    try:
        wait_for_dsn(proc)
        postmaster = postmaster_of(folder)
        proc.kill()  # SIGKILL: nothing is cleaned up, the server stays
        proc.wait()
        assert alive(postmaster)
        second = subprocess.run([sys.executable, "-m", "actae", "dev", "--data-dir",
                                 str(folder), "--port", str(pg.free_port())], cwd=REPO,
                                env=clean_env(), capture_output=True, text=True, timeout=60)
        assert second.returncode == 1, second.stderr
        lines = second.stderr.strip().splitlines()
        assert len(lines) == 1 and "already runs" in lines[0], lines
        assert "to stop it: " in lines[0], lines[0]
        command = shlex.split(lines[0].split("to stop it: ", 1)[1])
        subprocess.run(command, cwd="/", env=clean_env(), check=True, timeout=60)
        assert_stopped(folder, postmaster)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_failed_start_quotes_only_its_own_log(tmp_path: Path) -> None:
    """Two failed starts (each port taken): the second message names its own port, and none
    of the first start's lines."""
    server = pg.Server(tmp_path / "srv")
    messages: list[str] = []
    ports: list[int] = []
    try:
        for _ in range(2):
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
                taken.bind(("127.0.0.1", 0))
                taken.listen()
                port = int(taken.getsockname()[1])
                ports.append(port)
                server.port = port
                with pytest.raises(pg.ServerFailed) as failed:
                    server.start()
                messages.append(str(failed.value))
        assert f"port {ports[0]}?" in messages[0], messages[0]
        assert f"port {ports[1]}?" in messages[1], messages[1]
        assert f"port {ports[0]}?" not in messages[1], messages[1]
    finally:
        server.remove()
