"""``actae migrate --role-settings`` and ``--revoke-public-connect`` (docs/hardening.md): the
session settings reach an agent login (not through a tenant role: PostgreSQL applies only
the login's own settings), and after the revoke a role with no grant cannot connect while
an agent still can. Roles are made for the test and dropped afterwards."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

from actae import migrate


@pytest.fixture
def roles(dsn: str) -> Iterator[dict[str, str]]:
    tag = uuid.uuid4().hex[:8]
    names = {"tenant": f"rs_tenant_{tag}", "agent": f"rs_agent_{tag}",
             "nobody": f"rs_nobody_{tag}"}
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute(sql.SQL("create role {} nologin").format(sql.Identifier(names["tenant"])))
        admin.execute(sql.SQL("grant actae_agent to {}").format(sql.Identifier(names["tenant"])))
        for login in (names["agent"], names["nobody"]):
            admin.execute(sql.SQL("create role {} login").format(sql.Identifier(login)))
        admin.execute(sql.SQL("grant {} to {}").format(
            sql.Identifier(names["tenant"]), sql.Identifier(names["agent"])))
        database = sql.Identifier(admin.info.dbname)
        try:
            yield names
        finally:
            admin.execute(sql.SQL("grant connect, temporary on database {} to public").format(
                database))
            for role in (names["agent"], names["nobody"], names["tenant"]):
                admin.execute(sql.SQL("drop owned by {}").format(sql.Identifier(role)))
                admin.execute(sql.SQL("drop role {}").format(sql.Identifier(role)))


def show(dsn: str, login: str, setting: str) -> str:
    with psycopg.connect(make_conninfo(dsn, user=login), autocommit=True) as conn:
        row = conn.execute(sql.SQL("show {}").format(sql.Identifier(setting))).fetchone()
        assert row is not None
        return str(row[0])


def test_role_settings_reach_every_agent_login(dsn: str, roles: dict[str, str]) -> None:
    assert show(dsn, roles["agent"], "idle_in_transaction_session_timeout") == "0"
    changed = migrate.apply_role_settings(dsn)
    assert roles["agent"] in changed
    assert roles["nobody"] not in changed  # not an agent
    assert roles["tenant"] not in changed  # NOLOGIN: its settings would reach no session
    for name, value in migrate.AGENT_ROLE_SETTINGS.items():
        assert show(dsn, roles["agent"], name) == value
    # An idle transaction past the timeout is ended by the server.
    with psycopg.connect(make_conninfo(dsn, user=roles["agent"])) as conn:
        conn.execute("set idle_in_transaction_session_timeout = '200ms'")
        conn.execute("select 1")
        time.sleep(0.6)
        with pytest.raises(psycopg.errors.IdleInTransactionSessionTimeout):
            conn.execute("select 1")


def test_role_settings_for_named_logins_only(dsn: str, roles: dict[str, str]) -> None:
    assert migrate.apply_role_settings(
        dsn, [roles["nobody"]], {"statement_timeout": "7s"}) == [roles["nobody"]]
    assert show(dsn, roles["nobody"], "statement_timeout") == "7s"
    assert show(dsn, roles["agent"], "statement_timeout") == "0"


def test_revoke_public_connect(dsn: str, roles: dict[str, str]) -> None:
    show(dsn, roles["nobody"], "search_path")  # connects before
    migrate.revoke_public_connect(dsn)
    with pytest.raises(psycopg.OperationalError, match="permission denied"):
        psycopg.connect(make_conninfo(dsn, user=roles["nobody"])).close()
    # An agent login keeps CONNECT through actae_agent, but no longer TEMP.
    with (psycopg.connect(make_conninfo(dsn, user=roles["agent"]), autocommit=True) as conn,
          pytest.raises(psycopg.errors.InsufficientPrivilege)):
        conn.execute("create temp table t (x int)")


@pytest.fixture
def agent_login(dsn: str) -> Iterator[str]:
    login = f"rl_agent_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute(sql.SQL("create role {} login in role actae_agent").format(
            sql.Identifier(login)))
        try:
            yield login
        finally:
            for function in admin.execute(migrate._ADVISORY_FUNCTIONS).fetchall():
                admin.execute(sql.SQL("grant execute on function {} to public").format(
                    sql.SQL(function[0])))
            admin.execute(sql.SQL("drop owned by {}").format(sql.Identifier(login)))
            admin.execute(sql.SQL("drop role {}").format(sql.Identifier(login)))


def test_revoke_public_locks(dsn: str, agent_login: str) -> None:
    """An agent could hold the advisory lock that guards another tenant's channel (its key
    is computed from the channel id) and stall that channel's appends and completions."""
    channel = f"rl-{uuid.uuid4().hex}"
    guard = "select pg_advisory_lock(hashtextextended(%s, 1633907811))"
    with psycopg.connect(make_conninfo(dsn, user=agent_login), autocommit=True) as conn:
        conn.execute(guard, (channel,))
        conn.execute("select pg_advisory_unlock_all()")
    functions = migrate.revoke_public_locks(dsn)
    assert "pg_catalog.pg_advisory_lock(integer, integer)" in functions
    assert "pg_catalog.pg_try_advisory_xact_lock_shared(bigint)" in functions
    assert len(functions) == 21
    with psycopg.connect(make_conninfo(dsn, user=agent_login), autocommit=True) as conn:
        for attempt in (guard, "select pg_try_advisory_xact_lock(hashtext(%s)::bigint)"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(attempt, (channel,))
        # Actae's own guards still work for the agent: a claim, its completion, an append.
        row = conn.execute("select execution_id, claim_token from actae.claim_execution("
                           "%s, 'k', 'tool', '{}')", (channel,)).fetchone()
        assert row is not None
        done = conn.execute("select status from actae.complete_execution(%s, %s, '1', %s)",
                            (*row, channel)).fetchone()
        assert done == ("completed",)
        assert conn.execute("select cursor from actae.record_event(%s, 'step', '{}')",
                            (channel,)).fetchone() == (1,)
