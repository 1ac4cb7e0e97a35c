"""The pools a client opens for itself try to connect again at most RECONNECT_MAX_DELAY
seconds apart (psycopg_pool's own backoff doubles without end: 32 s apart after a minute)."""

from __future__ import annotations

from typing import Any

import pytest
from psycopg_pool import ConnectionPool
from psycopg_pool.base import AttemptWithBackoff

from actae._pool import RECONNECT_MAX_DELAY, ParkingPool, _Reconnect


def test_the_delay_between_tries_is_capped() -> None:
    attempt, delays = _Reconnect(timeout=300), []
    for second in range(12):
        attempt.update_delay(float(second))
        delays.append(attempt.delay)
    assert 0.8 < delays[0] < 1.2  # psycopg_pool's first delay
    assert max(delays) == RECONNECT_MAX_DELAY
    plain = AttemptWithBackoff(timeout=300)
    for second in range(12):
        plain.update_delay(float(second))
    assert plain.delay > 100  # what the cap replaces


def test_the_pools_own_connection_attempts_use_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []
    monkeypatch.setattr(ConnectionPool, "_add_connection",
                        lambda self, attempt, growing=False: seen.append(attempt))
    pool = ParkingPool("", open=False)
    pool._add_connection(None)  # noqa: SLF001 - the hook under test
    assert isinstance(seen[0], _Reconnect)
