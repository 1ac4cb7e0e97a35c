"""The stalled worker: a worker frozen with SIGSTOP past its lease must lose it for good.

Worker A (a real process) claims with a 1 s lease and heartbeats while it works; it is
frozen with SIGSTOP, worker B (another process) reclaims, and A is resumed with SIGCONT.
The fence, not A's belief or its clock, decides: every write A attempts is LeaseLost.
"""

from __future__ import annotations

import pytest

from .stalling import check_fenced, run_stall


@pytest.mark.parametrize("b_finishes_first", [True, False])
def test_resumed_worker_is_fenced_out(dsn: str, b_finishes_first: bool) -> None:
    check_fenced(run_stall(dsn, reclaim=True, b_finishes_first=b_finishes_first))


def test_lapsed_lease_nobody_reclaimed_is_still_honoured(dsn: str) -> None:
    """The contrast: without a reclaim, A's token is still the current one after SIGCONT."""
    stall = run_stall(dsn, reclaim=False)
    assert stall.a_report["heartbeat"]["ok"] is True
    assert stall.a_report["complete"] == {"ok": True, "status": "completed", "fence": 1}
    assert stall.a_report["fail"]["error"] == "IdempotencyConflict"  # already completed
    assert stall.ledger == ("completed", 1, 1, {"by": "A"})
