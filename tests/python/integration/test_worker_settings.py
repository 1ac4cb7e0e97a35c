"""Worker settings a worker cannot work with are refused, naming the argument: concurrency
below 1 (it would never claim), lease_seconds outside 1..86400 (claim_run refuses it),
poll_interval not a positive finite number of seconds. `actae worker --concurrency` refuses
the same with an argparse error (exit status 2) before loading anything."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from actae import Run, SyncActaeClient, Worker


@pytest.mark.parametrize(("kwargs", "argument"), [
    ({"concurrency": 0}, "concurrency"),
    ({"concurrency": -1}, "concurrency"),
    ({"concurrency": 1.5}, "concurrency"),
    ({"concurrency": True}, "concurrency"),
    ({"lease_seconds": 0}, "lease_seconds"),
    ({"lease_seconds": -5}, "lease_seconds"),
    ({"lease_seconds": 86401}, "lease_seconds"),
    ({"lease_seconds": 2.5}, "lease_seconds"),
    ({"poll_interval": 0}, "poll_interval"),
    ({"poll_interval": -0.5}, "poll_interval"),
    ({"poll_interval": float("nan")}, "poll_interval"),
    ({"poll_interval": float("inf")}, "poll_interval"),
], ids=lambda v: repr(v))
def test_a_setting_a_worker_cannot_work_with_is_refused(dsn: str, kwargs: dict[str, Any],
                                                        argument: str) -> None:
    with pytest.raises(ValueError, match=f"^{argument} must be"):
        Worker(dsn, queue="q", **kwargs)


def test_the_bounds_themselves_are_accepted(dsn: str) -> None:
    bounds: list[dict[str, Any]] = [{"concurrency": 1}, {"lease_seconds": 1},
                                     {"lease_seconds": 86400}, {"poll_interval": 0.01},
                                     {"poll_interval": 5}]
    for kwargs in bounds:
        Worker(dsn, queue="q", **kwargs)


def test_a_setting_changed_after_construction_is_refused_when_the_worker_runs(
    dsn: str, unique: Callable[..., str]
) -> None:
    worker = Worker(dsn, queue=unique("q"), poll_interval=0.1)

    @worker.agent("a")
    async def a(run: Run) -> None:
        return None

    worker.concurrency = 0
    with pytest.raises(ValueError, match="^concurrency must be an integer of at least 1"):
        asyncio.run(asyncio.wait_for(worker.run_async(until_idle=True), 10))
    worker.concurrency = 1
    asyncio.run(asyncio.wait_for(worker.run_async(until_idle=True), 10))  # runs again


def _module(tmp_path: Path, queue: str) -> dict[str, str]:
    (tmp_path / "settings_agents.py").write_text(
        "import os\nfrom actae import Worker\n"
        f"worker = Worker(os.environ['ACTAE_DSN'], queue={queue!r}, poll_interval=0.1)\n"
        "@worker.agent('echo')\nasync def echo(run):\n    return run.input\n")
    return {**os.environ,
            "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}


@pytest.mark.parametrize("value", ["0", "-1", "two"])
def test_the_cli_refuses_a_concurrency_below_one(dsn: str, unique: Callable[..., str],
                                                 tmp_path: Path, value: str) -> None:
    env = {**_module(tmp_path, unique("q")), "ACTAE_DSN": dsn}
    done = subprocess.run(
        [sys.executable, "-m", "actae", "worker", "settings_agents:worker",
         f"--concurrency={value}"],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 2, done.stderr
    assert "argument --concurrency:" in done.stderr
    assert "agents echo" not in done.stderr  # refused before the worker started


def test_the_cli_applies_a_valid_concurrency(dsn: str, unique: Callable[..., str],
                                             tmp_path: Path) -> None:
    queue, channel = unique("q"), unique("run")
    env = {**_module(tmp_path, queue), "ACTAE_DSN": dsn}
    proc = subprocess.Popen(
        [sys.executable, "-m", "actae", "worker", "settings_agents:worker",
         "--concurrency", "3"],
        env=env, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    try:
        with SyncActaeClient(dsn) as client:
            client.start_run(channel, "echo", 7, queue)
            deadline = time.monotonic() + 30
            while client.get_run(channel).status != "completed":
                assert time.monotonic() < deadline
                time.sleep(0.1)
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "agents echo, concurrency 3" in err
