"""Supervisors of the run suites: real worker processes (runs_agents.py), real SIGKILL,
SIGSTOP/SIGCONT and ``pg_ctl stop -m immediate``, figures read back from PostgreSQL and
from the fake provider's books afterwards.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import psycopg

from actae import SyncActaeClient
from actae.fakes import FakeProvider

from . import REPO

FINAL = ("completed", "failed", "cancelled")


@dataclass
class RunFigures:
    runs: int
    workers: int
    kills: int = 0
    db_restarts: int = 0
    completed: int = 0
    failed: int = 0
    cancelled: int = 0
    lost: int = 0
    claims: int = 0
    retries: int = 0
    effects: int = 0
    requests: int = 0
    duplicates: int = 0
    approvals: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (f"{self.runs} runs on {self.workers} workers: {self.kills} SIGKILL,"
                f" {self.db_restarts} restarts; completed {self.completed}, lost {self.lost},"
                f" effects {self.effects} (provider requests {self.requests}), duplicates"
                f" {self.duplicates}, claims {self.claims}, retries {self.retries},"
                f" {self.seconds:.0f} s")


def _env() -> dict[str, str]:
    path = os.pathsep.join([str(REPO / "python"), str(REPO), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path}


def spawn(config: dict[str, Any], *extra: str) -> subprocess.Popen[str]:
    """A worker (or, with extra = ("approve",), the approver) process."""
    return subprocess.Popen(
        [sys.executable, "-m", "tests.python.reliability.runs_agents", *extra,
         json.dumps(config)],
        cwd=REPO, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def stop(proc: subprocess.Popen[str], sig: int = signal.SIGTERM) -> dict[str, Any]:
    """Signal a process, wait for it, and return its last JSON line (stats or approvals)."""
    if proc.poll() is None:
        proc.send_signal(sig)
    out, _ = proc.communicate(timeout=60)
    last: dict[str, Any] = {}
    for line in (out or "").splitlines():
        try:
            last = json.loads(line)
        except json.JSONDecodeError:
            continue
    return last


def _scenario(dsn: str, name: str, **settings: Any) -> tuple[str, str, dict[str, Any]]:
    """A fresh queue and fake-provider namespace named after the scenario (the provider's
    books created), and the workers' config: both and ``settings``."""
    tag = uuid.uuid4().hex[:10]
    queue, namespace = f"{name}-{tag}", f"{name}-{tag}/"
    FakeProvider(dsn, namespace=namespace)
    return queue, namespace, {"dsn": dsn, "queue": queue, "namespace": namespace, **settings}


def retrying(dsn: str, call: Callable[[SyncActaeClient], Any], tries: int = 100) -> Any:
    """One client call, retried across a database restart."""
    for attempt in range(tries):
        try:
            with SyncActaeClient(dsn, max_size=1) as client:
                return call(client)
        except (psycopg.Error, OSError, Exception) as exc:  # noqa: BLE001 - pool errors too
            if attempt == tries - 1:
                raise
            last = exc
            time.sleep(0.2)
    raise RuntimeError(last)


def survive(dsn: str, *, runs: int, workers: int = 3, kill_every: tuple[float, float] =
            (0.5, 2.0), restart: Callable[[], None] | None = None, restart_after: float = 3.0,
            timeout: float = 600.0, seed: int | None = None,
            max_kills: int | None = None) -> RunFigures:
    """``runs`` 5-step runs on ``workers`` worker processes SIGKILLed at random (each
    replaced at once), an approver process, and (with ``restart``) one database crash and
    restart ``restart_after`` seconds in. After ``max_kills`` kills (when given) the killing
    stops and the survivors must finish every run. Returns the audited figures."""
    rng = random.Random(seed)
    started = time.monotonic()
    queue, namespace, config = _scenario(dsn, "survive", lease=2, sleep=1, tool_seconds=0.05,
                                         concurrency=16)
    figures = RunFigures(runs=runs, workers=workers)
    procs = [spawn({**config, "name": f"w{i}"}) for i in range(workers)]
    approver = spawn(config, "approve")
    channels = [f"{queue}-{i}" for i in range(runs)]

    def start_all(client: SyncActaeClient) -> None:
        for i, channel in enumerate(channels):
            client.start_run(channel, "five", {"order": i}, queue, max_attempts=100)

    retrying(dsn, start_all)
    restarted = restart is None
    try:
        while time.monotonic() - started < timeout and figures.kills != max_kills:
            time.sleep(rng.uniform(*kill_every))
            if not restarted and time.monotonic() - started > restart_after:
                assert restart is not None
                restart()
                figures.db_restarts += 1
                restarted = True
            victim = rng.randrange(workers)
            procs[victim].send_signal(signal.SIGKILL)
            procs[victim].wait()
            figures.kills += 1
            procs[victim] = spawn({**config, "name": f"w{victim}-{figures.kills}"})
            done = retrying(dsn, lambda c: sum(
                r.status in FINAL for r in c.list_runs(queue, max_rows=100000)))
            if done == runs:
                break
        # Let the survivors finish whatever the last kills left behind.
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            done = retrying(dsn, lambda c: sum(
                r.status in FINAL for r in c.list_runs(queue, max_rows=100000)))
            if done == runs:
                break
            time.sleep(0.5)
    finally:
        for proc in procs:
            stop(proc)
        figures.approvals = stop(approver).get("sent", 0)
    figures.seconds = time.monotonic() - started
    audit(dsn, queue, namespace, channels, figures)
    return figures


def audit(dsn: str, queue: str, namespace: str, channels: list[str],
          figures: RunFigures) -> None:
    """Read the truth back: every run's status, and the provider's books per key."""
    rows = retrying(dsn, lambda c: {r.channel_id: r for r in c.list_runs(queue,
                                                                          max_rows=100000)})
    provider = FakeProvider(dsn, namespace=namespace)
    with psycopg.connect(dsn, autocommit=True) as conn:
        per_key = dict(conn.execute(
            "select idempotency_key, count(*) from fake_provider.effects"
            " where provider = 'keyed' and namespace = %s group by 1",
            (namespace,)).fetchall())
        ids = {row[0] for row in conn.execute(
            "select effect_id from fake_provider.effects where namespace = %s",
            (namespace,)).fetchall()}
    figures.effects = provider.effects()
    figures.requests = provider.requests()
    figures.duplicates = sum(n - 1 for n in per_key.values())
    for channel in channels:
        run = rows.get(channel)
        if run is None:
            figures.lost += 1
            figures.errors.append(f"{channel}: no run")
            continue
        figures.claims += run.attempt
        figures.retries += run.failures
        if run.status == "completed":
            figures.completed += 1
            result = run.result or {}
            wanted = [result.get("charged"), result.get("receipt")]
            if any(effect not in ids for effect in wanted):
                figures.lost += 1
                figures.errors.append(f"{channel}: result {result} not at the provider")
        else:
            figures.lost += 1
            setattr(figures, run.status, getattr(figures, run.status, 0) + 1)
            figures.errors.append(f"{channel}: {run.status} ({run.error})")
    # Two effects per completed run (charge, receipt), each exactly once.
    if figures.effects != 2 * figures.completed + figures.duplicates:
        figures.errors.append(f"{figures.effects} effects for {figures.completed} runs")


def check(figures: RunFigures) -> None:
    assert figures.lost == 0 and figures.completed == figures.runs, figures.errors[:10]
    assert figures.duplicates == 0, figures.line()
    assert figures.effects == 2 * figures.runs, figures.line()
    assert not figures.errors, figures.errors[:10]


# --- the single-run scenarios ------------------------------------------------------------

def _wait_status(dsn: str, channel: str, statuses: tuple[str, ...], timeout: float = 60
                 ) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        run = retrying(dsn, lambda c: c.get_run(channel))
        if run.status in statuses:
            return run
        assert time.monotonic() < deadline, f"{channel} stayed {run.status}"
        time.sleep(0.1)


@dataclass
class StallFigures:
    a_stats: dict[str, Any]
    b_stats: dict[str, Any]
    run: Any
    execution: Any
    effects: int
    seconds: float


def stall(dsn: str, stop_seconds: float = 3.0) -> StallFigures:
    """Worker A claims a run whose tool takes 3 s and is SIGSTOPped past its 2 s lease;
    worker B takes the run over and finishes it; A is resumed with SIGCONT and tries to
    finish too. The fences decide: A's writes are LeaseLost, B's result stands."""
    started = time.monotonic()
    queue, namespace, config = _scenario(dsn, "stall", lease=2, tool_seconds=3.0, grace=10.0)
    channel = f"{queue}-run"
    a = spawn({**config, "name": "A"})
    retrying(dsn, lambda c: c.start_run(channel, "slow", {"order": 1}, queue))
    _wait_status(dsn, channel, ("running",))
    time.sleep(0.5)  # A is inside the tool now
    a.send_signal(signal.SIGSTOP)
    b = spawn({**config, "name": "B", "tool_seconds": 0.1})
    try:
        time.sleep(stop_seconds)
        done = _wait_status(dsn, channel, FINAL)
        assert done.worker == "B", done
    finally:
        a.send_signal(signal.SIGCONT)
    time.sleep(4.0)  # A's tool finishes and A tries to record its result
    a_stats, b_stats = stop(a), stop(b)
    run = retrying(dsn, lambda c: c.get_run(channel))
    execution = retrying(dsn, lambda c: c.get_execution(channel_id=channel, key_name="charge"))
    effects = FakeProvider(dsn, namespace=namespace).effects()
    return StallFigures(a_stats, b_stats, run, execution, effects, time.monotonic() - started)


def stall_between_steps(dsn: str) -> tuple[Any, Any, int, dict[str, Any]]:
    """Worker A charges, then is SIGSTOPped while it thinks (work the ledger does not
    record), past its 1 s lease; an operator cancels the run and worker B's claim ends it as
    cancelled. A is resumed with SIGCONT and reaches its next step, a refund, after the run
    ended. Returns the run, the refund's execution (None: never claimed), the provider's
    effects and A's stats."""
    queue, namespace, config = _scenario(dsn, "between", lease=1, think=1.5)
    channel = f"{queue}-run"
    a = spawn({**config, "name": "A"})
    retrying(dsn, lambda c: c.start_run(channel, "between", {"order": 1}, queue))
    deadline = time.monotonic() + 60
    while retrying(dsn, lambda c: c.list_executions(channel, "completed")) == []:
        assert time.monotonic() < deadline, "A did not charge"
        time.sleep(0.05)
    time.sleep(0.3)  # A thinks now
    a.send_signal(signal.SIGSTOP)
    stopped = time.monotonic()
    b = spawn({**config, "name": "B"})
    try:
        retrying(dsn, lambda c: c.cancel_run(channel, "customer withdrew"))
        run = _wait_status(dsn, channel, FINAL)
        # Resumed once its thinking is over too: its next step is due at once, beside the
        # overdue heartbeat (a stall longer than the work the agent was doing).
        time.sleep(max(0.0, stopped + 2.0 - time.monotonic()))
    finally:
        a.send_signal(signal.SIGCONT)
    time.sleep(2.0)  # A is past the refund now, or was stopped before it
    a_stats = stop(a)
    stop(b)
    refund = retrying(dsn, lambda c: c.list_executions(channel))
    refund = next((e for e in refund if e.key_name == "refund"), None)
    return run, refund, FakeProvider(dsn, namespace=namespace).effects(), a_stats


def approval_while_no_worker(dsn: str) -> Any:
    """A run waits for approval; its worker stops (SIGTERM); a person approves with the CLI
    (`actae event send`, a separate process); a new worker starts and finishes the run."""
    queue, namespace, config = _scenario(dsn, "approve", lease=2, sleep=0)
    channel = f"{queue}-run"
    first = spawn({**config, "name": "first"})
    retrying(dsn, lambda c: c.start_run(channel, "five", {"order": 7}, queue))
    _wait_status(dsn, channel, ("waiting",))
    stop(first)
    subprocess.run([sys.executable, "-m", "actae", "event", "send", channel, "approval",
                    "--payload", '{"approved": true}', "--dsn", dsn], cwd=REPO, env=_env(),
                   check=True, capture_output=True)
    woken = retrying(dsn, lambda c: c.get_run(channel))
    second = spawn({**config, "name": "second"})
    try:
        done = _wait_status(dsn, channel, FINAL)
    finally:
        stop(second)
    return woken, done, FakeProvider(dsn, namespace=namespace).effects()


def timed_out_wait(dsn: str) -> Any:
    """A wait with a 1 s timeout and no approval resumes through the timeout branch."""
    queue, _, config = _scenario(dsn, "timeout", lease=2, sleep=0, wait_timeout=1)
    channel = f"{queue}-run"
    worker = spawn({**config, "name": "w"})
    try:
        retrying(dsn, lambda c: c.start_run(channel, "five", {"order": 3}, queue))
        return _wait_status(dsn, channel, FINAL)
    finally:
        stop(worker)


def cancel_each(dsn: str) -> dict[str, Any]:
    """Cancel a sleeping, a waiting and a running run with `actae run cancel`; each ends."""
    queue, _, config = _scenario(dsn, "cancel", lease=2, sleep=600, tool_seconds=600.0,
                                 grace=1.0)
    fast = {**config, "tool_seconds": 0.01}
    channels = {"sleeping": f"{queue}-sleep", "waiting": f"{queue}-wait",
                "running": f"{queue}-run"}
    sleeper = spawn({**fast, "name": "sleeper"})
    retrying(dsn, lambda c: c.start_run(channels["sleeping"], "five", {"order": 1}, queue))
    _wait_status(dsn, channels["sleeping"], ("sleeping",))
    stop(sleeper)
    waiter = spawn({**fast, "sleep": 0, "name": "waiter"})
    retrying(dsn, lambda c: c.start_run(channels["waiting"], "five", {"order": 2}, queue))
    _wait_status(dsn, channels["waiting"], ("waiting",))
    stop(waiter)
    runner = spawn({**config, "name": "runner"})
    try:
        retrying(dsn, lambda c: c.start_run(channels["running"], "slow", {"order": 3}, queue))
        _wait_status(dsn, channels["running"], ("running",))
        for channel in channels.values():
            subprocess.run([sys.executable, "-m", "actae", "run", "cancel", channel,
                            "--reason", "soak", "--dsn", dsn], cwd=REPO, env=_env(),
                           check=True, capture_output=True)
        return {state: _wait_status(dsn, channel, FINAL, timeout=30)
                for state, channel in channels.items()}
    finally:
        stop(runner)
