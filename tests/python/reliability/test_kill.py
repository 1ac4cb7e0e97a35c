"""Kill at every moment (short version; the soak runs it longer).

Real worker processes are SIGKILLed at random kill points and restarted until every
workflow finishes; the ledger and the fake provider's books are then audited.
"""

from __future__ import annotations

import pytest

from .crashes import STRATEGIES, Scenario, check, run_scenario

# Processes and timing, the same on any server: make test runs it in its second pass only.
pytestmark = pytest.mark.second


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_workflow_finishes_exactly_once_despite_sigkill(
    dsn: str, strategy: str, capsys: pytest.CaptureFixture[str]
) -> None:
    figures = run_scenario(dsn, Scenario(strategy=strategy))
    with capsys.disabled():
        print(f"\n[kill] {figures.line()}")
    assert figures.kills > 0 and figures.runs > figures.kills
    assert figures.reclaims > 0 and figures.replays > 0
    check(figures)
