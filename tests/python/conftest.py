"""Shared pytest fixtures for Actae: every test talks to a real PostgreSQL.

`dsn` is $ACTAE_DSN when set (`make pytest` / `make test` start the repository's server,
migrate it and set it); otherwise the `actae_dsn` fixture of Actae's own pytest plugin
(`actae.testing`) starts a throwaway server for the session ($ACTAE_PG_BIN picks the binaries:
`make test` runs the suite a second time on the embedded PostgreSQL 18 this way). The
throwaway's DSN is exported as ACTAE_DSN for the subprocesses tests start.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator

import psycopg
import pytest

from tests.python.support.helpers import reset_clock


@pytest.fixture(scope="session")
def dsn(request: pytest.FixtureRequest) -> Iterator[str]:
    """Connection string of the migrated test database."""
    given = os.environ.get("ACTAE_DSN")
    if given:
        yield given
        return
    value: str = request.getfixturevalue("actae_dsn")
    os.environ["ACTAE_DSN"] = value
    try:
        yield value
    finally:
        os.environ.pop("ACTAE_DSN", None)


@pytest.fixture
def conn(dsn: str) -> Iterator[psycopg.Connection]:
    """An autocommit connection to the test database, closed after the test."""
    with psycopg.connect(dsn, autocommit=True) as connection:
        yield connection


@pytest.fixture
def unique() -> Callable[..., str]:
    """Make ids no other test (or earlier run) uses: unique("run") -> "run-3f2a…"."""

    def make(prefix: str = "test") -> str:
        return f"{prefix}-{uuid.uuid4().hex}"

    return make


@pytest.fixture
def real_clock(dsn: str) -> Iterator[None]:
    """Tests that move the database clock (move_clock_past) get the real one back."""
    try:
        yield
    finally:
        reset_clock(dsn)
