"""A migration that alters a table while a long transaction uses it: it waits for its lock
LOCK_TIMEOUT at a time and gives way in between (rolled back whole, tried again), so calls
that arrive meanwhile are not queued behind it past their own lock_timeout (agents' 5 s: a
completion lost that way made its tool run again). It waited for as long as the
transaction lasted, with every later call of that table queued behind it."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from actae import migrate as migrations

REPO = Path(__file__).resolve().parents[3]


def root_with(tmp_path: Path, name: str, text: str) -> Path:
    """The shipped migrations and sql/, and one more migration."""
    shutil.copytree(REPO / "migrations", tmp_path / "migrations")
    shutil.copytree(REPO / "sql", tmp_path / "sql")
    (tmp_path / "migrations" / name).write_text(text)
    return tmp_path


def test_a_migration_gives_way_to_calls_while_a_transaction_holds_its_lock(
    actae_fresh_dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    root = root_with(tmp_path, "0999_scratch.sql",
                     "alter table actae.runs add column scratch integer;\n")
    monkeypatch.setattr(migrations, "LOCK_TIMEOUT", "300ms", raising=False)
    done: list[Any] = []

    def run_migrate() -> None:
        try:
            done.append(migrations.migrate(actae_fresh_dsn, root))
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            done.append(exc)

    with psycopg.connect(actae_fresh_dsn) as holder, psycopg.connect(
            actae_fresh_dsn, autocommit=True) as caller:
        holder.execute("select count(*) from actae.runs").fetchone()  # its lock, held
        migrating = threading.Thread(target=run_migrate)
        migrating.start()
        time.sleep(0.5)  # the migration is waiting for the holder's lock now
        # A call arriving meanwhile, with a lock_timeout shorter than the holder's
        # transaction: it got the table between two tries of the migration.
        caller.execute("set lock_timeout = '1500ms'")
        assert caller.execute("select count(*) from actae.runs").fetchone() == (0,)
        time.sleep(1.5)
        holder.rollback()  # the long transaction ends
        migrating.join(60)
    assert done == [["0999_scratch"]], done
    assert "0999_scratch is waiting for a lock" in caplog.text
    with psycopg.connect(actae_fresh_dsn) as conn:
        column = conn.execute("select count(*) from information_schema.columns"
                              " where table_schema = 'actae' and table_name = 'runs'"
                              " and column_name = 'scratch'").fetchone()
    assert column == (1,)


def test_a_lock_held_past_the_tries_fails_the_migrate_naming_why(
    actae_fresh_dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = root_with(tmp_path, "0999_scratch.sql",
                     "alter table actae.runs add column scratch integer;\n")
    monkeypatch.setattr(migrations, "LOCK_TIMEOUT", "200ms", raising=False)
    monkeypatch.setattr(migrations, "LOCK_TRIES_SECONDS", 1.5, raising=False)
    with psycopg.connect(actae_fresh_dsn) as holder:
        holder.execute("select count(*) from actae.runs").fetchone()
        with pytest.raises(migrations.MigrationError) as raised:
            migrations.migrate(actae_fresh_dsn, root)
        holder.rollback()
    text = str(raised.value)
    assert "migrations/0999_scratch.sql" in text and "[55P03]" in text, text
    assert "a transaction holds a lock it needs" in text, text
    assert migrations.status(actae_fresh_dsn, root)[-1].state == "pending"
