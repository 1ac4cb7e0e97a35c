"""The fork fidelity suite (tests/tools/fidelity.py) against the real server: six
scenarios, original / fork / re-run, deterministic checks and the judge's pass rule."""

from __future__ import annotations

import copy
import uuid
from pathlib import Path
from typing import Any

import pytest

from actae import SyncActaeClient
from tests.tools import fidelity
from tests.tools.scenarios import SCENARIOS, Scenario


@pytest.fixture(scope="module")
def results(dsn: str) -> list[fidelity.Result]:
    return fidelity.run_suite(dsn)


def test_at_least_five_unrelated_scenarios() -> None:
    assert len(SCENARIOS) >= 5
    assert len({s.name for s in SCENARIOS}) == len(SCENARIOS)
    assert len({s.steps for s in SCENARIOS}) >= 4
    assert all(1 <= s.fork_at < s.steps for s in SCENARIOS)


def test_every_scenario_passes_the_checks_and_the_pass_rule(
    results: list[fidelity.Result],
) -> None:
    assert [r.scenario.name for r in results] == [s.name for s in SCENARIOS]
    for r in results:
        assert r.checks and all(r.checks.values()), (r.scenario.name, r.checks)
        assert r.fork_score >= fidelity.PASS_SCORE, r.scenario.name
        assert r.fork_score >= r.rerun_score - fidelity.MAX_BEHIND_RERUN, r.scenario.name
        assert r.passed


def test_scores_come_from_the_runs(results: list[fidelity.Result]) -> None:
    judge = fidelity.StructuralJudge()
    for r in results:
        assert r.original and r.fork and r.rerun
        # recomputed from the recorded runs, and a run is identical to itself
        assert judge.score(r.scenario, r.original, r.fork) == r.fork_score
        assert judge.score(r.scenario, r.original, r.rerun) == r.rerun_score
        assert judge.score(r.scenario, r.original, r.original) == 10.0
        # the runs really are different channels with their own events
        assert len({r.original.channel_id, r.fork.channel_id, r.rerun.channel_id}) == 3
        assert r.fork.events[: r.scenario.fork_at] == r.original.events[: r.scenario.fork_at]
    # tools that answer differently per request make re-runs diverge; forks do not
    assert any(r.rerun_score < r.fork_score - 1.5 for r in results)
    assert all(0 <= r.rerun_score <= 10 for r in results)


def test_judge_penalises_a_broken_fork(results: list[fidelity.Result]) -> None:
    judge = fidelity.StructuralJudge()
    r = results[0]
    assert r.original and r.fork
    broken = copy.deepcopy(r.fork)
    broken.events.pop(0)  # a lost prefix event shifts the whole history
    broken.state["report"] = "unrelated text"
    assert judge.score(r.scenario, r.original, broken) < r.fork_score - 2


def test_a_live_tool_policy_is_caught_re_executing_the_prefix(dsn: str) -> None:
    """Negative control: forking with model = live re-runs the prefix's model calls (they
    answer the same, so the prefix still replays), and the suite's 'no prefix tool
    re-executed' check says so."""
    scenario = SCENARIOS[0]
    with SyncActaeClient(dsn, max_size=2) as client:
        result = fidelity.evaluate(client, dsn, scenario, fidelity.StructuralJudge(),
                                   uuid.uuid4().hex[:8], tool_policies={"model": "live"})
    assert result.checks["no prefix tool re-executed"] is False
    assert result.checks["identical inherited prefix"] is True
    assert result.checks["prefix steps replayed"] is True
    assert result.fork and any(tool == "model" for _, _, tool in result.fork.ran)
    assert not result.passed


class CountingJudge:
    """A plug-in judge: 10 when the deliverables match, else 0; remembers what it saw."""

    name = "counting"
    seen: list[tuple[str, str]] = []  # every instance appends here

    def score(self, scenario: Scenario, original: Any, candidate: Any) -> float:
        self.seen.append((original.channel_id, candidate.channel_id))
        return 10.0 if original.output == candidate.output else 0.0


def test_a_pluggable_judge_is_used(dsn: str, tmp_path: Path) -> None:
    CountingJudge.seen.clear()
    out = tmp_path / "FIDELITY.md"
    code = fidelity.main(["--judge", f"{__name__}:{CountingJudge.__name__}",
                          "--out", str(out), "--only", "code_review,restock"])
    assert code == 0  # equal inputs, equal deliverable: every fork scores 10
    text = out.read_text()
    assert "judge: counting" in text
    for s in SCENARIOS:
        line = f"| {s.name} | {s.steps} | {s.fork_at} | 10.00 |"
        assert (line in text) == (s.name in ("code_review", "restock"))
    assert len(CountingJudge.seen) == 2 * 2
    assert all(original.endswith("-original") for original, _ in CountingJudge.seen)
