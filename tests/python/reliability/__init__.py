"""Actae's reliability suite: real crashes, races, stalls, restarts, bad input and intruders.

Workers are real OS processes (``python -m tests.python.reliability.worker``) killed with
real SIGKILL by a supervisor in the test process; every figure is read back from PostgreSQL
afterwards.
``python -m tests.python.reliability.soak`` runs the long versions and writes
docs/RELIABILITY.md.
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
