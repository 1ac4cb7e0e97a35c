"""The migration runner against real PostgreSQL.

Each test gets a scratch database and, except the last, a scratch copy of migrations/ and
sql/ holding small files of its own, so the real schema and its contents never matter.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from actae.migrate import MigrationError, migrate, status

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def scratch_dsn(dsn: str) -> Iterator[str]:
    """A new, empty database on the test server, dropped afterwards."""
    name = f"actae_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(dsn, autocommit=True) as admin:
        try:
            admin.execute(f'create database "{name}"')
        except psycopg.errors.InsufficientPrivilege:
            pytest.skip("the ACTAE_DSN role may not create databases")
        try:
            yield make_conninfo(dsn, dbname=name)
        finally:
            admin.execute(f'drop database if exists "{name}" with (force)')


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A scratch migrations/ + sql/ tree with two migrations and one function file."""
    write(
        tmp_path, "migrations/0001_widgets.sql", "create table actae.widgets (id int primary key);"
    )
    write(tmp_path, "migrations/0002_names.sql", "alter table actae.widgets add column name text;")
    write(tmp_path, "migrations/README.md", "not a migration")
    write(tmp_path, "sql/10_count.sql", count_function(0))
    return tmp_path


def write(root: Path, relative: str, text: str) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def count_function(offset: int) -> str:
    return (
        "create or replace function actae.widget_count() returns bigint language sql as $$"
        f" select count(*) + {offset} from actae.widgets $$;"
    )


def scalar(dsn: str, query: str) -> object:
    with psycopg.connect(dsn) as conn:
        row = conn.execute(query.encode()).fetchone()
        return row[0] if row else None


def recorded(dsn: str) -> list[tuple[int, str]]:
    with psycopg.connect(dsn) as conn:
        return conn.execute(
            "select version, name from actae.schema_migrations order by version"
        ).fetchall()


def cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "PYTHONPATH": str(REPO / "python"), **env}
    return subprocess.run(
        [sys.executable, "-m", "actae", *args], env=full_env, capture_output=True, text=True
    )


def test_second_run_applies_nothing(scratch_dsn: str, root: Path) -> None:
    assert migrate(scratch_dsn, root) == ["0001_widgets", "0002_names"]
    assert migrate(scratch_dsn, root) == []
    assert recorded(scratch_dsn) == [(1, "0001_widgets"), (2, "0002_names")]
    assert scalar(scratch_dsn, "select actae.widget_count()") == 0


def test_sql_files_are_reapplied_every_run(scratch_dsn: str, root: Path) -> None:
    migrate(scratch_dsn, root)
    write(root, "sql/10_count.sql", count_function(42))
    assert migrate(scratch_dsn, root) == []
    assert scalar(scratch_dsn, "select actae.widget_count()") == 42


def test_new_migration_is_applied_alone(scratch_dsn: str, root: Path) -> None:
    migrate(scratch_dsn, root)
    write(root, "migrations/0003_sizes.sql", "alter table actae.widgets add column size int;")
    assert migrate(scratch_dsn, root) == ["0003_sizes"]


def test_edited_migration_is_refused_and_nothing_more_applied(scratch_dsn: str, root: Path) -> None:
    migrate(scratch_dsn, root)
    write(root, "migrations/0001_widgets.sql", "create table actae.widgets (id bigint);")
    write(root, "migrations/0003_sizes.sql", "alter table actae.widgets add column size int;")
    with pytest.raises(MigrationError, match="0001_widgets.sql was edited after it was applied"):
        migrate(scratch_dsn, root)
    assert [v for v, _ in recorded(scratch_dsn)] == [1, 2]
    assert [s.state for s in status(scratch_dsn, root)] == ["edited", "applied", "pending"]


def test_failing_migration_records_nothing_and_names_the_line(scratch_dsn: str, root: Path) -> None:
    write(root, "migrations/0002_names.sql", "select 1;\n\nalter table actae.widgets add;")
    with pytest.raises(MigrationError, match=r"migrations/0002_names.sql line 3: syntax error"):
        migrate(scratch_dsn, root)
    assert recorded(scratch_dsn) == [(1, "0001_widgets")]
    write(root, "migrations/0002_names.sql", "alter table actae.widgets add column name text;")
    assert migrate(scratch_dsn, root) == ["0002_names"]


def test_badly_named_migration_is_refused(scratch_dsn: str, root: Path) -> None:
    write(root, "migrations/3_sizes.sql", "select 1;")
    with pytest.raises(MigrationError, match="NNNN_name.sql"):
        migrate(scratch_dsn, root)


def test_concurrent_migrators_apply_each_migration_once(scratch_dsn: str, root: Path) -> None:
    # A slow migration widens the window in which the second migrator arrives.
    write(
        root,
        "migrations/0002_names.sql",
        "select pg_sleep(0.5);\nalter table actae.widgets add column name text;",
    )
    start = threading.Barrier(2)
    results: list[list[str]] = []
    errors: list[BaseException] = []

    def run() -> None:
        start.wait()
        try:
            results.append(migrate(scratch_dsn, root))
        except BaseException as exc:  # reported by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == []
    assert sorted(results) == [[], ["0001_widgets", "0002_names"]]
    assert recorded(scratch_dsn) == [(1, "0001_widgets"), (2, "0002_names")]


def test_cli_status_and_migrate(scratch_dsn: str, root: Path) -> None:
    env = {"ACTAE_SQL_ROOT": str(root), "ACTAE_DSN": scratch_dsn}
    before = cli("migrate", "--status", env=env)
    assert before.returncode == 1, before.stderr  # anything pending: non-zero
    assert before.stdout.split("\n")[:2] == ["pending      0001_widgets",
                                              "pending      0002_names"]

    applied = cli("migrate", env=env)
    assert applied.returncode == 0, applied.stderr
    assert "applied 0001_widgets" in applied.stdout

    after = cli("migrate", "--status", "--json", env=env)
    rows = json.loads(after.stdout)
    assert [(r["name"], r["state"]) for r in rows] == [
        ("0001_widgets", "applied"),
        ("0002_names", "applied"),
    ]
    assert all(r["applied_at"] for r in rows)


def test_cli_without_dsn_exits_2_with_one_line(root: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ACTAE_DSN"}
    result = subprocess.run(
        [sys.executable, "-m", "actae", "migrate"],
        env={**env, "PYTHONPATH": str(REPO / "python"), "ACTAE_SQL_ROOT": str(root)},
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "ACTAE_DSN" in result.stderr


def test_repo_migrations_apply_and_are_idempotent(scratch_dsn: str) -> None:
    if not list((REPO / "migrations").glob("*.sql")):
        pytest.skip("the repo has no migrations yet")
    assert migrate(scratch_dsn, REPO)
    assert migrate(scratch_dsn, REPO) == []
    assert all(s.state == "applied" for s in status(scratch_dsn, REPO))
