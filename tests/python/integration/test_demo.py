"""The crash-recovery demo, run as `make demo` runs it: a real subprocess tree, a real
SIGKILL, and the provider's books checked afterwards."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid

from actae.fakes import FakeProvider

DEMO = [sys.executable, "-m", "actae.demo.crash"]


def run_demo(dsn: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        DEMO, env={**os.environ, "ACTAE_DSN": dsn},
        capture_output=True, text=True, timeout=60, check=False,
    )


def test_crash_demo_charges_once(dsn: str) -> None:
    # An earlier demo run's books (same key, its own channel and provider namespace) must
    # not leak into this run: each run tells the same story on the same database.
    earlier = FakeProvider(dsn, namespace=f"demo-earlier-{uuid.uuid4().hex}/")
    earlier.charge("charge_customer:order-4471", "charge_customer", {"order_id": "4471"})
    done = run_demo(dsn)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "FAIL" not in out
    channel = re.search(r"agent run \(channel\): (\S+)", out)
    assert channel is not None
    a = re.search(r"\[worker A, pid (\d+)\] claim -> claimed", out)
    assert a is not None
    assert f"sent SIGKILL to worker A (pid {a.group(1)}); exit status -9" in out
    assert "ledger: status claimed, fence 1, result null" in out
    # B usually sees A's live lease first (claim -> in_progress) and waits; on a loaded
    # machine A's 2 s lease may lapse before B starts, so that line is not required.
    assert re.search(r"\[worker B, pid \d+\] claim -> reclaimed: .*"
                     r"\(fence 2, attempt 2, ambiguous = true\)", out)
    # Actae's warning of the takeover is told by B, in the story, not as a bare stderr line.
    assert re.search(r"\[worker B, pid \d+\] Actae logs \(WARNING\): ambiguous takeover", out)
    assert "ambiguous takeover" not in done.stderr
    effects = re.findall(r"provider confirmed: charge effect #(\d+)", out)
    assert len(effects) == 2 and effects[0] == effects[1], "B must get A's charge back"
    assert re.search(r"\[worker C, pid \d+\] claim -> replayed", out)
    assert "provider charge count: 1\n" in out
    assert "provider request count: 2 " in out
    assert "INVARIANT HOLDS" in out
    # Workers are separate processes.
    pids = set(re.findall(r"\[worker [ABC], pid (\d+)\]", out))
    assert len(pids) == 3 and str(os.getpid()) not in pids


def test_crash_demo_without_a_database_says_so() -> None:
    env = {k: v for k, v in os.environ.items() if k != "ACTAE_DSN"}
    done = subprocess.run(DEMO, env=env, capture_output=True,
                          text=True, timeout=30, check=False)
    assert done.returncode == 2
    assert "ACTAE_DSN" in done.stderr
