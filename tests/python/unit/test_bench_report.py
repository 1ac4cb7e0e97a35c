"""The benchmark report states the whole run's real wall clock, and says which groups come
from an earlier run when `--only` re-measured some of them."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import report  # noqa: E402


def _results(groups: list[str], seconds: dict[str, int]) -> dict[str, Any]:
    return {"meta": {"total_seconds": 150, "groups": groups}, "seconds": seconds,
            "measured": {g: f"2026-12-0{i + 1} 10:00 UTC" for i, g in enumerate(seconds)}}


def test_whole_run_is_the_invocations_wall_clock() -> None:
    line = report._whole_run(_results(["claim", "forks"], {"claim": 100, "forks": 40}))
    assert line == "Whole run: 2.5 min (wall clock, every group measured in this run)."


def test_groups_from_an_earlier_run_are_named_with_their_date() -> None:
    line = report._whole_run(_results(["forks"], {"claim": 100, "forks": 40}))
    assert line.startswith("Whole run: 2.5 min (wall clock of groups forks; ")
    assert "claim measured 2026-12-01 10:00 UTC" in line
