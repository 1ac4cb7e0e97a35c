"""Shared pytest fixtures for Actae: every test talks to a real PostgreSQL given by ACTAE_DSN.

`make pytest` (or `make test`) starts a local server, migrates it and sets ACTAE_DSN.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator

import psycopg
import pytest


@pytest.fixture(scope="session")
def dsn() -> str:
    """Connection string of the migrated test database."""
    value = os.environ.get("ACTAE_DSN")
    if not value:
        pytest.fail(
            "ACTAE_DSN is not set: run `make pytest`, or `.ci/with-db.sh .venv/bin/pytest`",
            pytrace=False,
        )
    return value


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
