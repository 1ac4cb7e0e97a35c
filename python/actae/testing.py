"""Pytest plugin: test your agents against a real, migrated, throwaway Actae database.

Installed with actae and loaded by pytest automatically (entry point ``pytest11``). Fixtures:

``actae_dsn`` (session)
    DSN of a migrated Actae database. ``--actae-dsn DSN`` or ``$ACTAE_TEST_DSN`` picks an
    existing database (migrated first); otherwise one throwaway PostgreSQL is started for the
    session (``actae.pg.throwaway``: Debian/system binaries, or ``actae[embedded]``) and
    removed at the end. ``$ACTAE_DSN`` is deliberately not read, so a shell pointed at a real
    ledger never receives test data.
``actae_fresh_dsn`` (function)
    DSN of a new database of its own, copied from a migrated template on the same server and
    dropped after the test: for tests that need an empty ledger.
``actae_client`` (function)
    An open ``SyncActaeClient`` on ``actae_dsn``.

Example::

    def test_refund_runs_once(actae_client):
        claim = actae_client.claim_execution("run-42", "refund-42", "refund", {"order": 42})
        assert claim.owned
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

from actae.client import SyncActaeClient
from actae.migrate import migrate
from actae.pg import exit_on_signals, throwaway

_TEMPLATE = "actae_template"
_MIGRATED: set[str] = set()  # template DSNs migrated in this process


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("actae", "Actae test database")
    group.addoption(
        "--actae-dsn", default=None,
        help="use this (migrated on start) database instead of a throwaway PostgreSQL;"
        " default $ACTAE_TEST_DSN",
    )


@pytest.fixture(scope="session")
def actae_dsn(request: pytest.FixtureRequest) -> Iterator[str]:
    """A migrated Actae database for the session (see the module docstring)."""
    option: str | None = request.config.getoption("--actae-dsn")
    given = option or os.environ.get("ACTAE_TEST_DSN")
    # SIGTERM or SIGHUP (a CI job cancelled, `timeout`) stops the session as Ctrl-C does:
    # teardowns drop the tests' databases and stop the throwaway server, pytest reports the
    # failures and its summary, then the process ends by that signal (exit status 143, 129).
    with exit_on_signals(later=True):
        if given:
            _not_the_template(given, "--actae-dsn" if option else "ACTAE_TEST_DSN")
            migrate(given)
            yield given
            return
        with throwaway() as dsn:
            yield dsn


@pytest.fixture
def actae_fresh_dsn(actae_dsn: str) -> Iterator[str]:
    """A database of the test's own, migrated (copied from a template), dropped afterwards."""
    name = f"actae_test_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(_admin_dsn(actae_dsn), autocommit=True) as admin:
        _create_from_template(admin, actae_dsn, name)
        try:
            yield make_conninfo(actae_dsn, dbname=name)
        finally:
            admin.execute(sql.SQL("drop database if exists {} with (force)").format(
                sql.Identifier(name)))


@pytest.fixture
def actae_client(actae_dsn: str) -> Iterator[SyncActaeClient]:
    """An open SyncActaeClient on the session's database, closed after the test."""
    with SyncActaeClient(actae_dsn, max_size=4) as client:
        yield client


def _not_the_template(dsn: str, source: str) -> None:
    """Refuse the template as the session's database (before anything is written to it):
    what the session wrote there would be in every database actae_fresh_dsn copies. The
    database connected to is asked (PGDATABASE or a service may name it, not the DSN)."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("select current_database()").fetchone()
    if row is not None and row[0] == _TEMPLATE:
        raise RuntimeError(f"{source} names database {_TEMPLATE}, the template"
                           " actae_fresh_dsn copies: give the session another database")


def _admin_dsn(dsn: str) -> str:
    """The same server and role, database ``postgres`` (create/drop database run there)."""
    return make_conninfo(dsn, dbname="postgres")


def _create_from_template(
    admin: psycopg.Connection[tuple[object, ...]], dsn: str, name: str,
) -> None:
    """Create database ``name`` from the template, creating the template once per server and
    migrating it once per session (it may be left from an older run). A lock makes
    concurrent sessions wait rather than race (a template must have no other connection)."""
    template_dsn = make_conninfo(dsn, dbname=_TEMPLATE)
    admin.execute("select pg_advisory_lock(hashtext('actae.testing template'))")
    try:
        if template_dsn not in _MIGRATED:
            found = admin.execute("select 1 from pg_database where datname = %s", (_TEMPLATE,))
            if found.fetchone() is None:
                admin.execute(sql.SQL("create database {}").format(sql.Identifier(_TEMPLATE)))
            migrate(template_dsn)
            _MIGRATED.add(template_dsn)
        admin.execute(sql.SQL("create database {} template {}").format(
            sql.Identifier(name), sql.Identifier(_TEMPLATE)))
    finally:
        admin.execute("select pg_advisory_unlock(hashtext('actae.testing template'))")
