"""Scratch databases on the test server: a fresh migrated Actae database, or an empty one."""

from __future__ import annotations

import shutil
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from actae.migrate import migrate


@contextmanager
def empty_database(dsn: str, prefix: str = "actae_scratch", options: str = "") -> Iterator[str]:
    """Create a database beside dsn's (with ``options``, e.g. its collation), with nothing in
    it (never migrated); yield its DSN; drop it."""
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute(f'create database "{name}" {options}'.rstrip())  # type: ignore[arg-type]
        try:
            yield make_conninfo(dsn, dbname=name)
        finally:
            admin.execute(f'drop database if exists "{name}" with (force)')


@contextmanager
def fresh_database(dsn: str, prefix: str = "actae_scratch", options: str = "") -> Iterator[str]:
    """empty_database with Actae's migrations applied."""
    with empty_database(dsn, prefix, options) as scratch:
        migrate(scratch)
        yield scratch


REPO = Path(__file__).resolve().parents[3]


def tree_at(commit: str, target: Path) -> Path:
    """migrations/ and sql/ as they were at commit (git archive), under target; the test is
    skipped in a copy of the repository without that history."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs the git history of the repository")
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", commit, "migrations", "sql"],
        capture_output=True, check=False,
    )
    if archive.returncode != 0:
        pytest.skip(f"commit {commit} is not in this clone's history")
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target
