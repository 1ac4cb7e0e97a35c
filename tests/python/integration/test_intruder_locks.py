"""Intruder suite, lock-holding (issue 14 F4): a caller that leaves a transaction open after
one API call cannot freeze other callers of that channel; they fail fast (lock_timeout on
every SECURITY DEFINER function, SQLSTATE 55P03) and succeed once the holder is gone.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import psycopg
import pytest


def test_every_definer_function_has_a_lock_timeout(conn: psycopg.Connection) -> None:
    rows = conn.execute(
        "select p.oid::regprocedure::text from pg_proc as p"
        " where p.pronamespace = 'actae'::regnamespace and p.prosecdef"
        " and not coalesce('lock_timeout=5s' = any(p.proconfig), false)"
    ).fetchall()
    assert rows == []


def test_a_held_channel_lock_fails_fast(dsn: str, unique: Callable[[str], str]) -> None:
    channel = unique("f4")
    with psycopg.connect(dsn, autocommit=True) as setup:
        setup.execute("select actae.create_channel(%s)", (channel,))
    with psycopg.connect(dsn) as holder, psycopg.connect(dsn, autocommit=True) as victim:
        holder.execute("select actae.record_event(%s, 'held', '{}')", (channel,))  # left open
        victim.execute("set statement_timeout = '60s'")  # without the fix: fail, not hang
        started = time.monotonic()
        with pytest.raises(psycopg.errors.LockNotAvailable):
            victim.execute("select actae.record_event(%s, 'blocked', '{}')", (channel,))
        waited = time.monotonic() - started
        assert 4 <= waited < 30, waited
        holder.rollback()
        victim.execute("select actae.record_event(%s, 'after', '{}')", (channel,))
