"""An agent that raises SystemExit (a library calling sys.exit) or KeyboardInterrupt fails its
run like any other agent error, in a real worker process: the worker keeps running its other
runs, and SIGINT / SIGTERM still shut it down gracefully (through stop())."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from actae import SyncActaeClient

AGENTS = """
import asyncio, os, sys
from actae import Run, Worker

worker = Worker(os.environ["ACTAE_DSN"], queue=os.environ["QUEUE"], concurrency=4,
                lease_seconds=3, poll_interval=0.1)

@worker.agent("exits")
async def exits(run: Run) -> None:
    await asyncio.sleep(0.2)
    sys.exit("agent library gave up")

@worker.agent("interrupts")
async def interrupts(run: Run) -> None:
    raise KeyboardInterrupt

@worker.agent("long")
async def long(run: Run) -> str:
    await asyncio.sleep(float(run.input))
    return "ok"

if __name__ == "__main__":
    if sys.argv[1:] == ["plain-loop"]:
        # No handler of the worker's or of asyncio.run: SIGINT keeps Python's default one.
        asyncio.new_event_loop().run_until_complete(worker.run_async())
    else:
        worker.run()
    print("worker returned normally", flush=True)
"""


@contextlib.contextmanager
def _worker(tmp_path: Path, dsn: str, queue: str, *args: str
            ) -> Iterator[subprocess.Popen[str]]:
    """A worker process of AGENTS; killed on the way out if the test left it running."""
    (tmp_path / "exit_agents.py").write_text(AGENTS)
    env = {**os.environ, "ACTAE_DSN": dsn, "QUEUE": queue}
    proc = subprocess.Popen([sys.executable, "exit_agents.py", *args], env=env, cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def _until(client: SyncActaeClient, channel: str, statuses: tuple[str, ...],
           proc: subprocess.Popen[str]) -> str:
    deadline = time.monotonic() + 20
    while (status := client.get_run(channel).status) not in statuses:
        assert proc.poll() is None, f"the worker exited: {proc.communicate()}"
        assert time.monotonic() < deadline, f"run {channel} is {status}"
        time.sleep(0.05)
    return status


def test_system_exit_and_keyboard_interrupt_fail_the_run_not_the_worker(
    dsn: str, unique: Callable[..., str], tmp_path: Path
) -> None:
    queue = unique("q")
    exits, interrupts, long, last = (unique(n) for n in ("exits", "interrupts", "long", "last"))
    with SyncActaeClient(dsn) as client:
        client.start_run(long, "long", 1.5, queue)
        client.start_run(exits, "exits", {}, queue, max_attempts=2)
        client.start_run(interrupts, "interrupts", {}, queue, max_attempts=1)
        with _worker(tmp_path, dsn, queue) as proc:
            assert _until(client, exits, ("failed",), proc) == "failed"
            exited = client.get_run(exits)
            assert (exited.error, exited.failures) == ("SystemExit: agent library gave up", 2)
            assert exited.attempt == 2  # retried once, like any other agent error
            interrupted = client.get_run(interrupts)
            assert (interrupted.status, interrupted.error) == ("failed", "KeyboardInterrupt")
            assert _until(client, long, ("completed",), proc) == "completed"
            # The worker still runs: it works a run started afterwards, and SIGINT (through
            # stop()) lets that run's agent finish before the worker returns.
            client.start_run(last, "long", 1.0, queue)
            _until(client, last, ("running",), proc)
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        assert "worker returned normally" in out
        assert client.get_run(last).status == "completed"


def test_sigterm_still_stops_a_worker_whose_agent_exited(
    dsn: str, unique: Callable[..., str], tmp_path: Path
) -> None:
    queue, exits = unique("q"), unique("exits")
    with SyncActaeClient(dsn) as client:
        client.start_run(exits, "exits", {}, queue, max_attempts=1)
        with _worker(tmp_path, dsn, queue) as proc:
            _until(client, exits, ("failed",), proc)
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "worker returned normally" in out


def test_a_keyboard_interrupt_with_the_default_sigint_handler_also_stops_the_worker(
    dsn: str, unique: Callable[..., str], tmp_path: Path
) -> None:
    """Where SIGINT has Python's default handler, a KeyboardInterrupt may be a real Ctrl-C:
    the worker stops gracefully, as after stop(), and records nothing for the run it cut
    (a shutdown's cut: the lease lapses and another worker resumes it)."""
    queue, interrupts = unique("q"), unique("interrupts")
    with SyncActaeClient(dsn) as client:
        client.start_run(interrupts, "interrupts", {}, queue, max_attempts=1)
        with _worker(tmp_path, dsn, queue, "plain-loop") as proc:
            out, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, err
        assert "worker returned normally" in out
        row = client.get_run(interrupts)
        assert (row.status, row.failures, row.error) == ("running", 0, None)
