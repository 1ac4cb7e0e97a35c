"""The pools a client opens for itself try to connect again at most RECONNECT_MAX_DELAY
seconds apart (psycopg_pool's own backoff doubles without end: 32 s apart after a minute)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout
from psycopg_pool.base import AttemptWithBackoff

from actae._pool import CONNECT_FAILED_AT, RECONNECT_MAX_DELAY, ParkingPool, _Reconnect
from actae.errors import mark_unreached, unreached


def test_the_delay_between_tries_is_capped() -> None:
    pool = ParkingPool("", open=False)
    attempt, delays = _Reconnect(pool, timeout=300), []
    for second in range(12):
        attempt.update_delay(float(second))
        delays.append(attempt.delay)
    assert getattr(pool, CONNECT_FAILED_AT) == 11.0  # the pool's last failed try
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


def test_a_pool_timeout_right_after_failures_to_connect_is_the_database_out_of_reach() -> None:
    """A pool timeout whose pool failed to connect moments ago: the database was out of
    reach (even if it answers by the time anyone asks); without such failures, it may be
    a pool kept busy (the worker asks the database)."""
    pool = ParkingPool("", open=False)
    busy = PoolTimeout("couldn't get a connection after 30.00 sec")
    mark_unreached(busy, None, pool)
    assert unreached(busy) == "pool"
    setattr(pool, CONNECT_FAILED_AT, time.monotonic() - 1)
    down = PoolTimeout("couldn't get a connection after 30.00 sec")
    mark_unreached(down, None, pool)
    assert unreached(down) == "server"
    closed = PoolClosed("the pool is already closed")
    mark_unreached(closed, None, pool)
    assert unreached(closed) is None
