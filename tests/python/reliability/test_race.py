"""Race: 32 callers claim one key at the same instant, epoch after epoch."""

from __future__ import annotations

import pytest

from .racing import run_race

# Processes and timing, the same on any server: make test runs it in its second pass only.
pytestmark = pytest.mark.second


@pytest.mark.parametrize("mode", ["connections", "processes"])
def test_exactly_one_owner_per_lease_epoch(
    dsn: str, mode: str, capsys: pytest.CaptureFixture[str]
) -> None:
    figures = run_race(dsn, mode, callers=32, epochs=3, lease=1)
    with capsys.disabled():
        print(f"\n[race] {figures.line()}")
    assert sorted(figures.owner_by_fence) == [1, 2, 3]
    assert figures.stale_rejections > 0
