"""actae.testing as a user's project sees it: a test file of their own, run by pytest with the
plugin loaded from its entry point, against an existing database or a throwaway server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict, make_conninfo

USER_TESTS = '''
import uuid

import psycopg

def test_client_claims(actae_client):
    # a key of its own: with ACTAE_TEST_DSN the database (and a lapsed claim) stays
    claim = actae_client.claim_execution("plugin-run", f"refund:{uuid.uuid4()}", "refund",
                                         {"order": 42})
    assert claim.status == "claimed"

def test_fresh_database_is_migrated_and_empty(actae_dsn, actae_fresh_dsn):
    assert actae_fresh_dsn != actae_dsn
    with psycopg.connect(actae_fresh_dsn) as conn:
        assert conn.execute("select count(*) from actae.executions").fetchone() == (0,)
        assert conn.execute("select count(*) from actae.schema_migrations").fetchone()[0] >= 1

def test_fresh_databases_are_distinct(actae_fresh_dsn, request):
    with psycopg.connect(actae_fresh_dsn) as conn:
        name = conn.execute("select current_database()").fetchone()[0]
    assert name.startswith("actae_test_")
'''


def run_user_tests(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_agent.py").write_text(USER_TESTS)
    base = {k: v for k, v in os.environ.items()
            if k not in {"ACTAE_DSN", "ACTAE_TEST_DSN", "PYTEST_ADDOPTS"}}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path, env={**base, **env}, timeout=300)


def test_plugin_on_a_given_database(tmp_path: Path, dsn: str) -> None:
    done = run_user_tests(tmp_path, ACTAE_TEST_DSN=dsn)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 passed" in done.stdout


@pytest.mark.once
def test_plugin_starts_a_throwaway_server_and_ignores_actae_dsn(tmp_path: Path) -> None:
    done = run_user_tests(tmp_path, ACTAE_DSN="host=/nonexistent port=1 dbname=production")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 passed" in done.stdout


# The plugin's own check, two pytest sessions: in make test's PostgreSQL 18 pass only.
@pytest.mark.second
def test_the_template_is_refused_as_the_sessions_database(tmp_path: Path, dsn: str) -> None:
    """Given as the session's database (ACTAE_TEST_DSN), the template was migrated and
    written to, and every fresh database copied from it then held those rows; now every
    fixture on it errors, before anything is written."""
    template = make_conninfo(dsn, dbname="actae_template")
    with psycopg.connect(make_conninfo(dsn, dbname="postgres"), autocommit=True) as admin:
        if admin.execute("select from pg_database where datname = 'actae_template'").fetchone() \
                is None:
            admin.execute("create database actae_template")
    before = _executions(template)
    done = run_user_tests(tmp_path, ACTAE_TEST_DSN=template)
    assert done.returncode == 1 and "3 errors" in done.stdout, done.stdout + done.stderr
    assert "ACTAE_TEST_DSN names database actae_template" in done.stdout
    # named by PGDATABASE, not in the DSN: the database connected to is what counts
    unnamed = {k: v for k, v in conninfo_to_dict(dsn).items() if k != "dbname"}
    done = run_user_tests(tmp_path, ACTAE_TEST_DSN=make_conninfo(**unnamed),  # type: ignore[arg-type]
                          PGDATABASE="actae_template")
    assert done.returncode == 1 and "3 errors" in done.stdout, done.stdout + done.stderr
    assert _executions(template) == before


def _executions(dsn: str) -> int | None:
    """How many executions the database holds (None: not migrated)."""
    with psycopg.connect(dsn) as conn:
        if conn.execute("select to_regclass('actae.executions')").fetchone() == (None,):
            return None
        row = conn.execute("select count(*) from actae.executions").fetchone()
        return None if row is None else int(row[0])
