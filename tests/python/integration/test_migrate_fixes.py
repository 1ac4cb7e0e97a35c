"""The migration runner's fixes, against real PostgreSQL: first migrations of two databases of
one cluster at once (roles are cluster-wide, the advisory lock is not), a failed first migrate
that leaves nothing behind, and a migration numbered below the newest applied one.

The cluster-wide race needs a cluster where the actae_* roles do not exist yet: that test
starts its own throwaway server (``actae.pg.Server``, unix socket only, in $TMPDIR; port from
$ACTAE_PG_PORT when set, else a free one) and removes it afterwards.
"""

from __future__ import annotations

import os
import tempfile
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

from actae import pg
from actae.migrate import MigrationError, migrate, status
from tests.python.integration.test_migrate import cli, recorded, scalar, write

REPO = Path(__file__).resolve().parents[3]
ACTAE_ROLES = ("actae_operator", "actae_agent", "actae_auditor", "actae_owner")


@pytest.fixture
def scratch_dsn(dsn: str) -> Iterator[str]:
    """A new, empty database on the test server, dropped afterwards."""
    name = f"actae_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(dsn, autocommit=True) as admin:
        try:
            admin.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
        except psycopg.errors.InsufficientPrivilege:
            pytest.skip("the ACTAE_DSN role may not create databases")
        try:
            yield make_conninfo(dsn, dbname=name)
        finally:
            admin.execute(
                sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


@pytest.fixture
def cluster() -> Iterator[pg.Server]:
    """A throwaway PostgreSQL cluster of its own (no actae_* role yet), removed afterwards."""
    try:
        port = int(os.environ.get("ACTAE_PG_PORT") or 0) or pg.free_port()
        server = pg.Server(tempfile.mkdtemp(prefix="actae-migfix-"), port=port, listen="")
    except pg.PostgresNotFound:
        pytest.skip("no PostgreSQL binaries to start a throwaway server")
    try:
        server.start()
        yield server
    finally:
        server.remove()


def _first_migrations_at_once(
    server: pg.Server, root: Path, databases: list[str],
) -> dict[str, str]:
    """Drop the actae_* roles, create the databases anew, migrate them all at the same moment
    (one thread each); the errors by database."""
    with psycopg.connect(server.dsn("postgres"), autocommit=True) as admin:
        for name in databases:
            admin.execute(sql.SQL("drop database if exists {} with (force)").format(
                sql.Identifier(name)))
            admin.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
        for role in ACTAE_ROLES:
            admin.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(role)))
    start = threading.Barrier(len(databases))
    errors: dict[str, str] = {}

    def run(name: str) -> None:
        start.wait()
        try:
            migrate(server.dsn(name), root)
        except BaseException as exc:  # reported by the caller's assertion
            errors[name] = f"{type(exc).__name__}: {exc}"

    threads = [threading.Thread(target=run, args=(name,)) for name in databases]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    return errors


def test_first_migrations_of_two_databases_of_one_cluster_at_once(
    cluster: pg.Server, tmp_path: Path,
) -> None:
    """F1: both first migrations create actae_owner & co. if missing; the one that loses the
    race on the cluster-wide role is run again and succeeds. Before the fix it failed with a
    duplicate key on pg_authid_rolname_index most of the time: four rounds make a pass by
    luck (1/8 each) unlikely."""
    for round_ in range(4):
        errors = _first_migrations_at_once(cluster, REPO, ["mig_a", "mig_b"])
        assert errors == {}, f"round {round_}"
        for name in ("mig_a", "mig_b"):
            assert all(s.state == "applied" for s in status(cluster.dsn(name), REPO))
            assert scalar(cluster.dsn(name), "select pg_has_role('actae_operator',"
                          " 'actae_agent', 'MEMBER')") is True

    # A duplicate that is no such race still surfaces, at once and with its own message.
    write(tmp_path, "migrations/0001_twice.sql",
          "create domain actae.twice as int;\ncreate domain actae.twice as int;")
    dsn = cluster.create_database("mig_dup")
    with pytest.raises(MigrationError, match=r'0001_twice.sql: type "twice" already exists'):
        migrate(dsn, tmp_path)
    write(tmp_path, "migrations/0001_twice.sql",
          "create role actae_agent nologin;")  # exists: no role appears meanwhile
    with pytest.raises(MigrationError, match=r'0001_twice.sql: role "actae_agent" already'):
        migrate(dsn, tmp_path)


@pytest.fixture
def owned_database(dsn: str) -> Iterator[tuple[str, str]]:
    """(superuser DSN, owner's DSN) of a new database owned by a new login role that is
    neither superuser nor may create roles; both dropped afterwards."""
    suffix = uuid.uuid4().hex[:10]
    database, role = f"actae_test_own_{suffix}", f"actae_test_dbowner_{suffix}"
    with psycopg.connect(dsn, autocommit=True) as admin:
        superuser = admin.execute("select rolsuper from pg_roles where rolname = current_user")
        if not superuser.fetchone()[0]:  # type: ignore[index]
            pytest.skip("needs a superuser to create a role and migrate after it")
        admin.execute(sql.SQL("create role {} login password 'owner'").format(
            sql.Identifier(role)))
        try:
            admin.execute(sql.SQL("create database {} owner {}").format(
                sql.Identifier(database), sql.Identifier(role)))
            target = make_conninfo(dsn, dbname=database)
            yield target, make_conninfo(target, user=role, password="owner")
        finally:
            admin.execute(sql.SQL("drop database if exists {} with (force)").format(
                sql.Identifier(database)))
            admin.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(role)))


def test_failed_first_migrate_leaves_nothing_for_a_superuser_to_refuse(
    owned_database: tuple[str, str],
) -> None:
    """F3: the database owner (no superuser) cannot migrate; its failed first migrate must not
    leave a schema actae of its own behind, which the superuser's migrate would refuse."""
    target, owner = owned_database
    with pytest.raises(MigrationError, match="0001_ledger.sql"):
        migrate(owner, REPO)
    assert scalar(target, "select to_regnamespace('actae')") is None
    assert migrate(target, REPO)[0] == "0001_ledger"
    assert scalar(target, "select nspowner::regrole::text from pg_namespace"
                  " where nspname = 'actae'") != owner


def test_migration_numbered_below_the_newest_applied_is_refused(
    scratch_dsn: str, tmp_path: Path,
) -> None:
    """A new 0002 after 0003 was applied would run after it: refused, one line naming the file
    and the newest applied migration; status shows it; nothing more is applied."""
    write(tmp_path, "migrations/0001_widgets.sql", "create table actae.widgets (id int);")
    write(tmp_path, "migrations/0003_sizes.sql", "alter table actae.widgets add column size int;")
    assert migrate(scratch_dsn, tmp_path) == ["0001_widgets", "0003_sizes"]
    write(tmp_path, "migrations/0002_names.sql", "alter table actae.widgets add column name text;")
    write(tmp_path, "migrations/0004_colors.sql", "alter table actae.widgets add column c text;")
    with pytest.raises(MigrationError) as refused:
        migrate(scratch_dsn, tmp_path)
    message = str(refused.value)
    assert "\n" not in message
    assert "0002_names.sql is numbered below 0003_sizes, the newest applied" in message
    assert "renumber it (e.g. 0005_names.sql)" in message
    assert [v for v, _ in recorded(scratch_dsn)] == [1, 3]
    assert [(s.name, s.state) for s in status(scratch_dsn, tmp_path)] == [
        ("0001_widgets", "applied"), ("0002_names", "out-of-order"),
        ("0003_sizes", "applied"), ("0004_colors", "pending"),
    ]
    shown = cli("migrate", "--status", env={"ACTAE_SQL_ROOT": str(tmp_path),
                                            "ACTAE_DSN": scratch_dsn})
    assert shown.returncode == 1 and "out-of-order 0002_names" in shown.stdout.split("\n")

    (tmp_path / "migrations/0002_names.sql").rename(tmp_path / "migrations/0005_names.sql")
    assert migrate(scratch_dsn, tmp_path) == ["0004_colors", "0005_names"]
