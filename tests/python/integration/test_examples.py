"""The programs in python/examples/ run as users run them: as scripts, on ACTAE_DSN."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.python.support.databases import fresh_database

EXAMPLES = Path(__file__).resolve().parents[3] / "python" / "examples"


@pytest.fixture
def db(dsn: str) -> Iterator[str]:
    with fresh_database(dsn, "actae_examples") as scratch:
        yield scratch


def script(name: str, dsn: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ACTAE_DSN"}
    if dsn is not None:
        env["ACTAE_DSN"] = dsn
    return subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True,
                          text=True, env=env, timeout=60)


def test_charge_once_charges_once_across_runs(db: str) -> None:
    first, second = script("charge_once.py", db), script("charge_once.py", db)
    assert first.returncode == second.returncode == 0, first.stderr + second.stderr
    effect = re.search(r"charge effect #(\d+)", first.stdout)
    assert effect is not None
    assert f"charge effect #{effect.group(1)}; the provider has seen 1 request(s)" in (
        second.stdout), "the second run must replay, not ask the provider again"


def test_charge_once_without_a_database_says_so() -> None:
    done = script("charge_once.py", None)
    assert done.returncode == 1 and "ACTAE_DSN" in done.stderr
