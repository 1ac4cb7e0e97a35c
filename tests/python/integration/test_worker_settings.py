"""Worker settings a worker cannot work with are refused, naming the argument: concurrency
below 1 (it would never claim), lease_seconds outside 1..86400 and a queue outside 1..256
bytes (claim_run refuses them), poll_interval not a positive finite number of seconds,
shutdown_grace not a finite number of seconds >= 0. `actae worker --concurrency` refuses
the same with an argparse error (exit status 2) before loading anything, and every other
setting a worker cannot run with in one line, exit status 2, before it starts. A second
SIGTERM cuts the grace short, and an agent that ignores its cancellation does not hold the
worker's exit."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import actae.worker
from actae import ActaeClient, ConnectionFailed, Run, SyncActaeClient, Worker

# Processes and timing, the same on any server: make test runs it in its first pass only.
pytestmark = pytest.mark.once


@pytest.mark.parametrize(("kwargs", "argument"), [
    ({"concurrency": 0}, "concurrency"),
    ({"concurrency": -1}, "concurrency"),
    ({"concurrency": 1.5}, "concurrency"),
    ({"concurrency": True}, "concurrency"),
    ({"lease_seconds": 0}, "lease_seconds"),
    ({"lease_seconds": -5}, "lease_seconds"),
    ({"lease_seconds": 86401}, "lease_seconds"),
    ({"lease_seconds": 2.5}, "lease_seconds"),
    ({"lease_seconds": True}, "lease_seconds"),
    ({"poll_interval": 0}, "poll_interval"),
    ({"poll_interval": -0.5}, "poll_interval"),
    ({"poll_interval": float("nan")}, "poll_interval"),
    ({"poll_interval": float("inf")}, "poll_interval"),
    ({"shutdown_grace": -1}, "shutdown_grace"),
    ({"shutdown_grace": "30s"}, "shutdown_grace"),
    ({"shutdown_grace": None}, "shutdown_grace"),
    ({"shutdown_grace": float("nan")}, "shutdown_grace"),
    ({"queue": ""}, "queue"),
    ({"queue": "q" * 257}, "queue"),
    ({"queue": "\u00e9" * 129}, "queue"),
    ({"queue": None}, "queue"),
    ({"queue": "jobs-\udcff"}, "queue"),
    ({"name": "w" * 257}, "name"),
    ({"name": "w\0"}, "name"),
    ({"name": 7}, "name"),
], ids=lambda v: repr(v)[:40])
def test_a_setting_a_worker_cannot_work_with_is_refused(dsn: str, kwargs: dict[str, Any],
                                                        argument: str) -> None:
    with pytest.raises(ValueError, match=f"^{argument} must be"):
        Worker(dsn, **{"queue": "q", **kwargs})


def test_the_bounds_themselves_are_accepted(dsn: str) -> None:
    bounds: list[dict[str, Any]] = [{"concurrency": 1}, {"lease_seconds": 1},
                                     {"lease_seconds": 86400}, {"poll_interval": 0.01},
                                     {"poll_interval": 5}, {"shutdown_grace": 0},
                                     {"queue": "q" * 256}, {"queue": "\u00e9" * 128},
                                     {"name": "w" * 256}, {"name": None}, {"name": ""}]
    for kwargs in bounds:
        Worker(dsn, **{"queue": "q", **kwargs})
    # a whole number of seconds from a JSON or YAML setting, as the integrations take it
    whole = Worker(dsn, queue="q", lease_seconds=30.0)  # type: ignore[arg-type]
    assert whole.lease_seconds == 30 and type(whole.lease_seconds) is int


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
        "import asyncio, os\nfrom actae import Worker\n"
        f"worker = Worker(os.environ['ACTAE_DSN'], queue={queue!r}, poll_interval=0.1,\n"
        "                shutdown_grace=float(os.environ.get('GRACE', '30')))\n"
        "@worker.agent('echo')\nasync def echo(run):\n    return run.input\n"
        "@worker.agent('slow')\nasync def slow(run):\n    await asyncio.sleep(600)\n"
        "@worker.agent('nap')\nasync def nap(run):\n    await asyncio.sleep(1.5)\n"
        "@worker.agent('stubborn')\nasync def stubborn(run):\n"
        "    print('stubborn started', flush=True)\n"
        "    while True:\n        try:\n            await asyncio.sleep(600)\n"
        "        except asyncio.CancelledError:\n            pass\n"
        "async def unwinding_tool(ctx):\n    try:\n        await asyncio.sleep(600)\n"
        "    except asyncio.CancelledError:\n"
        "        await asyncio.shield(asyncio.sleep(5))\n        raise\n"
        "@worker.agent('unwinding')\nasync def unwinding(run):\n"
        "    return await run.tool(unwinding_tool, key='k')\n"
        "empty = Worker(os.environ['ACTAE_DSN'], queue='q')\n"
        "async def factory():\n    return worker\n")
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
    assert "agents echo, nap, slow, stubborn, unwinding, concurrency 3" in err


@pytest.mark.parametrize(("args", "message"), [
    (["settings_agents:worker", "--queue", ""], "settings_agents:worker: queue must be 1 to 256"),
    (["settings_agents:worker", "--queue", "q" * 257],
     "settings_agents:worker: queue must be 1 to 256 bytes"),
    (["settings_agents:empty"], "settings_agents:empty: register at least one agent"),
    (["settings_agents:factory"], "settings_agents:factory is an async function"),
    (["--dsn", "host=/nonexistent", "settings_agents:worker"], "--dsn does not apply"),
], ids=["empty queue", "long queue", "no agents", "async factory", "dsn"])
def test_the_cli_refuses_a_worker_that_cannot_run_in_one_line(
    dsn: str, unique: Callable[..., str], tmp_path: Path, args: list[str], message: str
) -> None:
    env = {**_module(tmp_path, unique("q")), "ACTAE_DSN": dsn}
    where = 1 if args[0] == "--dsn" else 0  # --dsn is the command line's, before the command
    argv = [*args[:where * 2], "worker", *args[where * 2:]]
    done = subprocess.run([sys.executable, "-W", "error", "-m", "actae", *argv], env=env,
                          cwd=tmp_path, capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"actae worker: {message}"), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr  # no traceback, no warning


def _worker_process(tmp_path: Path, dsn: str, queue: str, grace: str) -> subprocess.Popen[str]:
    env = {**_module(tmp_path, queue), "ACTAE_DSN": dsn, "GRACE": grace}
    return subprocess.Popen([sys.executable, "-m", "actae", "worker", "settings_agents:worker"],
                            env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _worker_running(tmp_path: Path, dsn: str, unique: Callable[..., str], agent: str,
                    grace: str) -> tuple[subprocess.Popen[str], str]:
    """A worker process (shutdown_grace = grace) running one run of agent; its channel."""
    queue, channel = unique("q"), unique("run")
    proc = _worker_process(tmp_path, dsn, queue, grace)
    try:
        with SyncActaeClient(dsn) as client:
            client.start_run(channel, agent, None, queue)
            deadline = time.monotonic() + 30
            while client.get_run(channel).status != "running":
                assert time.monotonic() < deadline
                time.sleep(0.05)
    except BaseException:
        proc.kill()
        proc.communicate()
        raise
    return proc, channel


def _signal(proc: subprocess.Popen[str], *steps: float | signal.Signals) -> str:
    """Send the worker process these signals (a number: seconds to wait first), then its
    stderr once it has exited (30 s at most); it is killed if it has not."""
    try:
        for step in steps:
            if isinstance(step, signal.Signals):
                proc.send_signal(step)
            else:
                time.sleep(step)
        return proc.communicate(timeout=30)[1]
    finally:
        proc.kill()
        proc.communicate()


def test_a_second_sigterm_ends_the_grace_at_once(dsn: str, unique: Callable[..., str],
                                                 tmp_path: Path) -> None:
    proc, channel = _worker_running(tmp_path, dsn, unique, "slow", grace="120")
    try:
        proc.send_signal(signal.SIGTERM)
        # More than the second after which the same signal ends the grace, measured where the
        # worker's loop handles each (on a loaded machine the first can be handled late).
        time.sleep(2.0)
        assert proc.poll() is None  # the first one waits for the agent (grace 120 s)
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        took = time.monotonic() - started
    finally:
        proc.kill()
        proc.communicate()
    assert proc.returncode == 0, err
    assert took < 20, took  # well inside the 120 s grace
    assert "'abandoned': 1" in err, err
    with SyncActaeClient(dsn) as client:
        assert client.get_run(channel).status == "running"  # cut: its lease lapses


def test_a_second_sigterm_while_the_client_closes_is_still_the_workers(
        dsn: str, unique: Callable[..., str], tmp_path: Path) -> None:
    """An agent cut at shutdown while its async tool unwinds for 5 s: closing the client
    waits (up to 2 s) for that tool's lease to be given back, and a SIGTERM sent meanwhile
    is still handled by the worker, which exits cleanly (the handlers were removed first,
    and the second SIGTERM killed the process, status -15)."""
    proc, _ = _worker_running(tmp_path, dsn, unique, "unwinding", grace="0.5")
    # The agent is in its tool; 1.5 s later, past the grace, the client is closing.
    err = _signal(proc, 0.5, signal.SIGTERM, 1.5, signal.SIGTERM)
    assert proc.returncode == 0, err
    assert ": stopped {" in err, err


def test_an_agent_that_ignores_its_cancellation_does_not_hold_the_exit(
    dsn: str, unique: Callable[..., str], tmp_path: Path
) -> None:
    proc, _ = _worker_running(tmp_path, dsn, unique, "stubborn", grace="0.5")
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "stubborn started\n"
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)  # before: never (SIGKILL was needed)
    finally:
        proc.kill()
        proc.communicate()
    assert proc.returncode == 0, err
    assert "did not stop when cancelled; leaving them behind" in err, (out, err)
    # said once, by the worker: not again by asyncio, about the task it left behind
    assert "Task was destroyed" not in err, err


@pytest.mark.parametrize("signals", [(signal.SIGINT, signal.SIGTERM),
                                     (signal.SIGINT, signal.SIGINT)],
                         ids=["SIGINT and SIGTERM", "SIGINT twice"])
def test_signals_that_come_together_are_one_stop(
    dsn: str, unique: Callable[..., str], tmp_path: Path, signals: tuple[signal.Signals, ...]
) -> None:
    """What a supervisor or wrapper in the terminal's process group sends on one Ctrl-C
    (it forwards the SIGINT, or answers it with a SIGTERM): the grace still applies, and
    the running agent finishes (only the same signal a second or more later ends it)."""
    proc, channel = _worker_running(tmp_path, dsn, unique, "nap", grace="30")
    err = _signal(proc, *signals)
    assert proc.returncode == 0, err
    assert "'completed': 1" in err, err
    assert ": stopping; running agents get 30.0 s to finish" in err, err
    assert "again: stopping the running agents now" not in err, err
    with SyncActaeClient(dsn) as client:
        assert client.get_run(channel).status == "completed"


@pytest.mark.parametrize("where", ["main thread", "another thread"])
def test_an_agents_own_keyboard_interrupt_is_its_failure_under_run(
    dsn: str, unique: Callable[..., str], where: str
) -> None:
    """Without the worker's signal handlers, run() handles Ctrl-C as asyncio.run does, so a
    KeyboardInterrupt the agent raises itself is recorded as its failure, not taken for the
    operator's Ctrl-C (which would stop the worker and leave the run to lapse, each time);
    in a thread that is not the main one no Ctrl-C can arrive at all."""
    queue, channel = unique("q"), unique("run")
    worker = Worker(dsn, queue=queue, poll_interval=0.1, shutdown_grace=5)

    @worker.agent("interrupting")
    async def interrupting(run: Run) -> None:
        raise KeyboardInterrupt("raised by the agent itself")

    with SyncActaeClient(dsn) as client:
        client.start_run(channel, "interrupting", None, queue, max_attempts=1)

        def stop_when_failed() -> None:
            deadline = time.monotonic() + 30
            while client.get_run(channel).status != "failed" and time.monotonic() < deadline:
                time.sleep(0.05)
            worker.stop()

        stopper = threading.Thread(target=stop_when_failed)
        stopper.start()
        if where == "main thread":
            worker.run(install_signal_handlers=False)
        else:
            runner = threading.Thread(target=worker.run,
                                      kwargs={"install_signal_handlers": False})
            runner.start()
            runner.join(timeout=60)
        stopper.join()
        failed = client.get_run(channel)
    assert (failed.status, failed.failures) == ("failed", 1)
    assert "KeyboardInterrupt" in (failed.error or ""), failed.error
    assert worker.stats["failed"] == 1


def test_run_inside_a_running_loop_says_to_await_run_async(dsn: str) -> None:
    worker = Worker(dsn, queue="q")

    @worker.agent("a")
    async def a(run: Run) -> None:
        return None

    async def inside() -> None:
        worker.run()

    with pytest.raises(RuntimeError, match="await worker.run_async"):
        asyncio.run(inside())


def test_run_with_signal_handlers_outside_the_main_thread_says_what_to_pass(dsn: str) -> None:
    worker = Worker(dsn, queue="q")

    @worker.agent("a")
    async def a(run: Run) -> None:
        return None

    raised: list[BaseException] = []

    def run_it() -> None:
        try:
            worker.run()
        except BaseException as exc:  # noqa: BLE001 - looked at below
            raised.append(exc)

    thread = threading.Thread(target=run_it)
    thread.start()
    thread.join(timeout=30)
    assert len(raised) == 1 and isinstance(raised[0], RuntimeError), raised
    assert "pass install_signal_handlers=False" in str(raised[0])


def test_a_worker_made_from_a_dsn_runs_again(dsn: str, unique: Callable[..., str]) -> None:
    queue = unique("q")
    worker = Worker(dsn, queue=queue, poll_interval=0.1)

    @worker.agent("echo")
    async def echo(run: Run) -> object:
        return run.input

    with SyncActaeClient(dsn) as client:
        for n in range(2):  # the pool of the first run is closed when it ends
            channel = unique("run")
            client.start_run(channel, "echo", n, queue)
            asyncio.run(asyncio.wait_for(worker.run_async(until_idle=True), 30))
            assert (client.get_run(channel).status, client.get_run(channel).result) == (
                "completed", n)


def test_the_first_line_comes_once_signals_are_handled(
    dsn: str, unique: Callable[..., str], tmp_path: Path
) -> None:
    """A SIGTERM sent as soon as the first line is read is graceful."""
    proc = _worker_process(tmp_path, dsn, unique("q"), grace="30")
    assert proc.stderr is not None
    first = proc.stderr.readline()
    err = _signal(proc, signal.SIGTERM)
    assert "agents echo" in first, first + err
    assert proc.returncode == 0, err
    assert "stopped {" in err, err


def test_the_worker_logs_under_its_prefix_and_leaves_the_agents_loggers_alone(
    dsn: str, unique: Callable[..., str], tmp_path: Path
) -> None:
    queue = unique("q")
    (tmp_path / "logging_agents.py").write_text(
        "import logging, os, sys\nfrom actae import Worker\n"
        "app = logging.getLogger('app')\nhandler = logging.StreamHandler(sys.stderr)\n"
        "handler.setFormatter(logging.Formatter('[app] %(message)s'))\n"
        "app.addHandler(handler)\n"
        f"worker = Worker(os.environ['ACTAE_DSN'], queue={queue!r}, name='gpu-50%',\n"
        "                poll_interval=0.1)\n"
        "@worker.agent('hello')\nasync def hello(run):\n"
        "    app.warning('hello from the agent')\n")
    env = {**os.environ, "ACTAE_DSN": dsn,
           "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-m", "actae", "worker", "logging_agents:worker"],
                            env=env, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        assert proc.stderr.readline().startswith("actae worker gpu-50%: queue ")
        with SyncActaeClient(dsn) as client:
            channel = unique("run")
            client.start_run(channel, "hello", None, queue)
            deadline = time.monotonic() + 30
            while client.get_run(channel).status != "completed":
                assert time.monotonic() < deadline
                time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
        proc.communicate()
    assert proc.returncode == 0, err
    assert err.count("hello from the agent") == 1, err  # once, in the agent's own format
    assert "[app] hello from the agent" in err, err
    assert "actae worker gpu-50%: SIGTERM: stopping" in err, err
    assert "Logging error" not in err, err


def test_a_failed_start_leaves_no_signal_handler_behind(dsn: str) -> None:
    worker = Worker("host=127.0.0.1 port=1 connect_timeout=2", queue="q")

    @worker.agent("a")
    async def a(run: Run) -> None:
        return None

    async def main() -> object:
        with pytest.raises(ConnectionFailed):
            await worker.run_async(install_signal_handlers=True)
        return signal.getsignal(signal.SIGTERM)

    assert asyncio.run(main()) is signal.SIG_DFL


def test_an_agent_left_behind_that_ends_later_starts_no_run(
    dsn: str, unique: Callable[..., str], monkeypatch: pytest.MonkeyPatch
) -> None:
    queue, first, second = unique("q"), unique("run"), unique("run")
    # Shorter waits at the cut, so the agent below outlasts them (left behind) in seconds.
    monkeypatch.setattr(actae.worker, "_RECORD_GRACE", 0.3)
    monkeypatch.setattr(actae.worker, "_CANCEL_GRACE", 0.3)

    async def main() -> tuple[str, str]:
        async with ActaeClient(dsn) as client:
            worker = Worker(client, queue=queue, poll_interval=0.1, shutdown_grace=0.2)

            @worker.agent("stubborn")
            async def stubborn(run: Run) -> str:
                ends = time.monotonic() + 3
                while time.monotonic() < ends:  # ignores its cancellation for 3 s
                    with contextlib.suppress(asyncio.CancelledError):
                        await asyncio.sleep(ends - time.monotonic())
                return "done"

            @worker.agent("echo")
            async def echo(run: Run) -> object:
                return run.input

            await client.start_run(first, "stubborn", None, queue)
            serving = asyncio.ensure_future(worker.run_async())
            while (await client.get_run(first)).status != "running":
                await asyncio.sleep(0.05)
            worker.stop()
            await serving  # returns with the stubborn agent left behind
            left = worker.stats["abandoned"]
            await client.start_run(second, "echo", 1, queue)
            await asyncio.sleep(3.5)  # the left-behind agent has ended by now
            return left, (await client.get_run(first)).status, (
                await client.get_run(second)).status

    left, first_status, second_status = asyncio.run(main())
    assert left == 1  # the stubborn agent was left behind
    assert first_status == "completed"  # its end recorded as it came
    assert second_status == "queued"  # but no run started by a worker that is not running
