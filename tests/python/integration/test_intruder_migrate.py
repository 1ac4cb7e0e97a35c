"""Intruder suite, migrate (issue 14 F8, F12): an unprivileged role must not be able to turn
`actae migrate` by a superuser into code of its own, or own the schema the ledger lives in.

Each test builds the hostile database it needs on the test server (a scratch database, a
throwaway login role) and drops both afterwards.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

from actae.migrate import MigrationError, migrate

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def scratch(dsn: str) -> Iterator[tuple[str, str, str]]:
    """(admin DSN of a new empty database, name of a new login role, that role's DSN)."""
    suffix = uuid.uuid4().hex[:10]
    database, role = f"actae_intruder_{suffix}", f"intruder_{suffix}"
    with psycopg.connect(dsn, autocommit=True) as admin:
        superuser = admin.execute("select rolsuper from pg_roles where rolname = current_user")
        if not superuser.fetchone()[0]:  # type: ignore[index]
            pytest.skip("the attack needs a superuser migrator and a role to create")
        admin.execute(sql.SQL("create database {}").format(sql.Identifier(database)))
        admin.execute(
            sql.SQL("create role {} login password 'intruder'").format(sql.Identifier(role))
        )
        target = make_conninfo(dsn, dbname=database)
        try:
            yield target, role, make_conninfo(target, user=role, password="intruder")
        finally:
            admin.execute(
                sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(database))
            )
            admin.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(role)))


def _is_superuser(dsn: str, role: str) -> bool:
    with psycopg.connect(dsn) as conn:
        row = conn.execute("select rolsuper from pg_roles where rolname = %s", (role,)).fetchone()
        return bool(row and row[0])


def test_writable_public_functions_do_not_run_during_migrate(
    scratch: tuple[str, str, str],
) -> None:
    """F8: on a database whose `public` schema anyone may write (PostgreSQL <= 14 default), an
    agent plants better-matching overloads of format/quote_ident; migrate must not call them."""
    target, role, intruder = scratch
    with psycopg.connect(target, autocommit=True) as admin:
        admin.execute("grant create on schema public to public")
        admin.execute(sql.SQL("grant actae_agent to {}").format(sql.Identifier(role)))
    payload = sql.SQL(
        "begin execute 'alter role ' || pg_catalog.quote_ident({role}) || ' superuser';"
        " insert into public.hijacked values (1); return {result}; end"
    )
    with psycopg.connect(intruder, autocommit=True) as conn:
        conn.execute("create table public.hijacked (hit int)")
        conn.execute("grant insert on public.hijacked to public")
        conn.execute(
            sql.SQL(
                "create function public.format(text, regprocedure) returns text"
                " language plpgsql as {body}"
            ).format(
                body=sql.Literal(
                    payload.format(
                        role=sql.Literal(role), result=sql.SQL("pg_catalog.format($1, $2)")
                    ).as_string(conn)
                )
            )
        )
        conn.execute(
            sql.SQL(
                "create function public.quote_ident(name) returns text language plpgsql as {body}"
            ).format(
                body=sql.Literal(
                    payload.format(
                        role=sql.Literal(role), result=sql.SQL("pg_catalog.quote_ident($1::text)")
                    ).as_string(conn)
                )
            )
        )
    migrate(target, REPO)  # first install: runs every migration
    migrate(target, REPO)  # routine re-run: re-applies sql/
    assert not _is_superuser(target, role)
    with psycopg.connect(target) as conn:
        assert conn.execute("select count(*) from public.hijacked").fetchone() == (0,)


def test_squatted_schema_is_refused(scratch: tuple[str, str, str]) -> None:
    """F12: a role with CREATE on the database pre-creates schema actae; migrate refuses it
    and creates nothing in it."""
    target, role, intruder = scratch
    with psycopg.connect(target, autocommit=True) as admin:
        admin.execute(
            sql.SQL("grant create on database {} to {}").format(
                sql.Identifier(admin.info.dbname), sql.Identifier(role)
            )
        )
    with psycopg.connect(intruder, autocommit=True) as conn:
        conn.execute("create schema actae")
    with pytest.raises(MigrationError, match=f"schema actae is owned by {role}"):
        migrate(target, REPO)
    with psycopg.connect(target) as conn:
        assert conn.execute(
            "select count(*) from pg_class where relnamespace = 'actae'::regnamespace"
        ).fetchone() == (0,)


def test_squatted_schema_migrations_is_refused(scratch: tuple[str, str, str]) -> None:
    """F12: the schema is the migrator's, but another role created actae.schema_migrations
    (e.g. through a CREATE grant on the schema): migrate refuses to trust that history."""
    target, role, intruder = scratch
    with psycopg.connect(target, autocommit=True) as admin:
        admin.execute("create schema actae")
        admin.execute(
            sql.SQL("grant create, usage on schema actae to {}").format(sql.Identifier(role))
        )
    with psycopg.connect(intruder, autocommit=True) as conn:
        conn.execute(
            "create table actae.schema_migrations (version int primary key, name text not null,"
            " checksum text not null, applied_at timestamptz not null default now())"
        )
    with pytest.raises(MigrationError, match=f"actae.schema_migrations is owned by {role}"):
        migrate(target, REPO)
