"""docs/langgraph.md: the "use Actae as your LangGraph checkpointer" example runs as written
(at most 15 lines) against the test database and prints the model's reply."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import psycopg

REPO = Path(__file__).resolve().parents[3]


def _example() -> str:
    text = (REPO / "docs" / "langgraph.md").read_text()
    section = text.split("## Use Actae as your LangGraph checkpointer", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match is not None, "the section has a python block"
    return match.group(1)


def test_checkpointer_example_runs(dsn: str) -> None:
    code = _example()
    assert len(code.strip().splitlines()) <= 15
    env = {**os.environ, "ACTAE_DSN": dsn,
           "PYTHONPATH": os.pathsep.join([str(REPO / "python"), os.environ.get("PYTHONPATH", "")])}
    for _ in range(2):  # the same thread again: resumed from the checkpoint, not restarted
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "Hello! How can I help?"
    with psycopg.connect(dsn) as conn:
        row = conn.execute(
            "select count(*) from actae.langgraph_list('support-42', '')").fetchone()
    assert row is not None and row[0] >= 6, "each run stored its checkpoints"
