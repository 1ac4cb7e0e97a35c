"""The refund-desk worker example, run as `make demo-worker` runs it: real worker processes,
a real SIGKILL while the run waits, an approval sent with `actae event send`, and the
provider's books checked afterwards."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
EXAMPLE = REPO / "python" / "examples" / "refund_desk_worker.py"


# The example as a story of processes, the same on any server version: in make test's
# PostgreSQL 18 pass only (marker `second`).
@pytest.mark.second
def test_refund_desk_worker_demo_refunds_once(dsn: str) -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "demo"], env={**os.environ, "ACTAE_DSN": dsn},
        capture_output=True, text=True, timeout=120, check=False,
    )
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "run is waiting for approval; SIGKILL the worker" in out
    assert "approved from the CLI while no worker runs; run is waiting, wake reason event" in out
    assert "run completed after 3 claims" in out
    assert "provider: 1 refund(s)" in out
    assert "OK: refunded once" in out
