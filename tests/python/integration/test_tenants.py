"""Tenant helpers (actae.tenants) and the ``actae tenant`` commands, on a real database: the
roles they create really isolate two tenants, and every refusal changes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

from actae import tenants
from actae.errors import InvalidInput, NotFound

ACTAE = Path(sys.executable).parent / "actae"


@pytest.fixture
def names(conn: psycopg.Connection) -> Iterator[dict[str, str]]:
    """Fresh role names; every role with one of them is dropped afterwards."""
    tag = uuid.uuid4().hex[:8]
    made = {k: f"tt_{k}_{tag}" for k in ("shop", "bank", "w1", "w2", "plain", "self")}
    yield made
    for role in reversed(list(made.values())):
        if conn.execute("select 1 from pg_roles where rolname = %s", (role,)).fetchone():
            conn.execute(sql.SQL("drop owned by {}").format(sql.Identifier(role)))
            conn.execute(sql.SQL("drop role {}").format(sql.Identifier(role)))


def run(dsn: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(ACTAE), *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "ACTAE_DSN": dsn})


def roles(conn: psycopg.Connection) -> list[tuple[str, ...]]:
    return [tuple(r) for r in conn.execute(
        "select r.rolname, m.roleid::regrole::text from pg_roles as r"
        " left join pg_auth_members as m on m.member = r.oid"
        " where r.rolname like 'tt\\_%' order by 1, 2").fetchall()]


def test_create_tenant_and_add_logins(conn: psycopg.Connection, names: dict[str, str]) -> None:
    shop = tenants.create_tenant(conn, names["shop"])
    assert shop == tenants.Tenant(names["shop"], ())
    assert tenants.create_tenant(conn, names["shop"]) == shop  # again: unchanged
    added = tenants.add_tenant_login(conn, names["shop"], names["w1"], create=True)
    assert added.logins == (names["w1"],)
    assert tenants.add_tenant_login(conn, names["shop"], names["w1"]).logins == (names["w1"],)
    assert tenants.get_tenant(conn, names["shop"]) in tenants.list_tenants(conn)
    row = conn.execute("select rolcanlogin from pg_roles where rolname = %s",
                       (names["shop"],)).fetchone()
    assert row == (False,)


def test_refusals_change_nothing(conn: psycopg.Connection, names: dict[str, str]) -> None:
    tenants.create_tenant(conn, names["shop"])
    tenants.create_tenant(conn, names["bank"])
    tenants.add_tenant_login(conn, names["shop"], names["w1"], create=True)
    conn.execute(sql.SQL("create role {} login").format(sql.Identifier(names["plain"])))
    conn.execute(sql.SQL("create role {} login").format(sql.Identifier(names["self"])))
    conn.execute(sql.SQL("grant actae_agent to {}").format(sql.Identifier(names["self"])))
    before = roles(conn)
    refusals = [
        (lambda: tenants.create_tenant(conn, names["plain"]), "is not a tenant"),
        (lambda: tenants.create_tenant(conn, "actae_agent"), "Actae's own roles"),
        (lambda: tenants.create_tenant(conn, ""), "1..63 bytes"),
        (lambda: tenants.add_tenant_login(conn, names["bank"], names["w1"]),
         f"already belongs to tenant {names['shop']}"),
        (lambda: tenants.add_tenant_login(conn, names["bank"], names["self"]),
         "granted actae_agent directly"),
        (lambda: tenants.add_tenant_login(conn, names["bank"], names["w2"]), "does not exist"),
        (lambda: tenants.add_tenant_login(conn, names["plain"], names["w2"], create=True),
         "does not exist"),
        (lambda: tenants.get_tenant(conn, names["plain"]), "does not exist"),
    ]
    for call, message in refusals:
        with pytest.raises(InvalidInput, match=message):
            call()
    assert roles(conn) == before


def test_a_login_in_a_tenant_through_a_group_is_not_added_to_another(
        dsn: str, conn: psycopg.Connection, names: dict[str, str]) -> None:
    """A login that belongs to a tenant through a group role (login -> group -> tenant, as
    the SQL counts tenants) is refused a second tenant: it would then belong to two, and
    every channel it creates would be refused (AC400)."""
    tenants.create_tenant(conn, names["shop"])
    tenants.create_tenant(conn, names["bank"])
    group, login = names["plain"], names["w1"]
    conn.execute(sql.SQL("create role {}").format(sql.Identifier(group)))
    conn.execute(sql.SQL("grant {} to {}").format(sql.Identifier(names["shop"]),
                                                  sql.Identifier(group)))
    conn.execute(sql.SQL("create role {} login").format(sql.Identifier(login)))
    conn.execute(sql.SQL("grant {} to {}").format(sql.Identifier(group), sql.Identifier(login)))
    before = roles(conn)
    with pytest.raises(InvalidInput, match=f"already belongs to tenant {names['shop']}"):
        tenants.add_tenant_login(conn, names["bank"], login)
    assert roles(conn) == before
    # What the SQL says of that login: one tenant, shop (a channel it creates is shop's).
    channel = f"tt-group-{uuid.uuid4().hex[:8]}"
    conn.execute(sql.SQL("set session authorization {}").format(sql.Identifier(login)))
    try:
        conn.execute("select actae.claim_execution(%s, 'k', 't', '{}')", (channel,))
    finally:
        conn.execute("reset session authorization")
    tenant = conn.execute("select tenant::regrole::text from actae.channels"
                          " where channel_id = %s", (channel,)).fetchone()
    assert tenant == (names["shop"],)


def test_a_login_whose_members_are_in_another_tenant_is_not_added(
        dsn: str, conn: psycopg.Connection, names: dict[str, str]) -> None:
    """Granting a tenant to a shared login puts every login that inherits from it in that
    tenant too: refused when one of them is in another tenant (it would read both), and so
    is a login holding actae_auditor (global table reads). The list shows indirect members,
    the ones a hand-made grant lets in."""
    tenants.create_tenant(conn, names["shop"])
    tenants.create_tenant(conn, names["bank"])
    tenants.add_tenant_login(conn, names["shop"], names["w1"], create=True)
    hub, auditor = names["plain"], names["self"]
    for role in (hub, auditor):
        conn.execute(sql.SQL("create role {} login").format(sql.Identifier(role)))
    conn.execute(sql.SQL("grant {} to {}").format(sql.Identifier(hub), sql.Identifier(names["w1"])))
    conn.execute(sql.SQL("grant actae_auditor to {}").format(sql.Identifier(auditor)))
    before = roles(conn)
    with pytest.raises(InvalidInput, match=f"through role {names['w1']}, a member of it,"
                                           f" already belongs to tenant {names['shop']}"):
        tenants.add_tenant_login(conn, names["bank"], hub)
    with pytest.raises(InvalidInput, match="granted actae_auditor"):
        tenants.add_tenant_login(conn, names["bank"], auditor)
    assert roles(conn) == before
    refused = run(dsn, "tenant", "add-login", names["bank"], hub)
    assert refused.returncode == 1 and "a member of it" in refused.stderr
    assert roles(conn) == before
    # The same tenant is no second one: w1 is in shop already.
    assert tenants.add_tenant_login(conn, names["shop"], hub).logins == tuple(
        sorted((names["w1"], hub)))
    # A grant by hand is not checked; the list shows who reads the tenant's channels.
    conn.execute(sql.SQL("grant {} to {}").format(sql.Identifier(names["bank"]),
                                                  sql.Identifier(hub)))
    assert tenants.get_tenant(conn, names["bank"]).logins == tuple(sorted((names["w1"], hub)))


def test_cli_tenants_isolate_and_assign(dsn: str, conn: psycopg.Connection,
                                       names: dict[str, str]) -> None:
    for args in (("tenant", "create", names["shop"]), ("tenant", "create", names["bank"]),
                 ("tenant", "add-login", names["shop"], names["w1"], "--create"),
                 ("tenant", "add-login", names["bank"], names["w2"], "--create")):
        done = run(dsn, *args)
        assert done.returncode == 0, done.stderr
    listed = json.loads(run(dsn, "tenant", "list", "--json").stdout)
    assert {"tenant": names["shop"], "logins": [names["w1"]]} in listed
    refused = run(dsn, "tenant", "add-login", names["bank"], names["w1"])
    assert refused.returncode == 1 and "already belongs" in refused.stderr
    channel = f"tt-{uuid.uuid4().hex[:8]}"
    with psycopg.connect(make_conninfo(dsn, user=names["w1"]), autocommit=True) as w1, \
            psycopg.connect(make_conninfo(dsn, user=names["w2"]), autocommit=True) as w2:
        w1.execute("select actae.record_event(%s, 'step', '{}')", (channel,))
        with pytest.raises(psycopg.Error) as raised:
            w2.execute("select * from actae.get_channel(%s)", (channel,))
        assert raised.value.sqlstate == "AC404"
        moved = run(dsn, "tenant", "assign", channel, names["bank"])
        assert moved.returncode == 0, moved.stderr
        assert w2.execute("select head_cursor from actae.get_channel(%s)",
                          (channel,)).fetchone() == (1,)
        with pytest.raises(psycopg.Error) as raised:
            w1.execute("select * from actae.get_channel(%s)", (channel,))
        assert raised.value.sqlstate == "AC404"
    with pytest.raises(NotFound):
        tenants.assign_tenant(conn, "tt-no-such-channel", names["bank"])
    with pytest.raises(InvalidInput):
        tenants.assign_tenant(conn, channel, names["w1"])


def test_quotas_set_enforce_measure_and_remove(dsn: str, conn: psycopg.Connection,
                                               names: dict[str, str]) -> None:
    shop = names["shop"]
    tenants.create_tenant(conn, shop)
    tenants.add_tenant_login(conn, shop, names["w1"], create=True)
    done = run(dsn, "tenant", "quota", shop, "--max-channels", "1", "--max-events-per-channel",
               "2", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["max_channels"] == 1
    assert run(dsn, "tenant", "quota", shop).returncode == 2  # no limit and no --remove
    refused = run(dsn, "tenant", "quota", names["w1"], "--max-bytes", "5")
    assert refused.returncode == 1 and "tenant" in refused.stderr  # a login is no tenant
    with psycopg.connect(make_conninfo(dsn, user=names["w1"]), autocommit=True) as w1:
        channel = f"tq-{uuid.uuid4().hex[:8]}"
        for _ in range(2):
            w1.execute("select actae.record_event(%s, 'step', '{}')", (channel,))
        with pytest.raises(psycopg.Error) as raised:  # the third event in the channel
            w1.execute("select actae.record_event(%s, 'step', '{}')", (channel,))
        assert raised.value.sqlstate == "AC429"
        with pytest.raises(psycopg.Error) as raised:  # a second channel
            w1.execute("select actae.record_event(%s, 'step', '{}')", (channel + "-2",))
        assert raised.value.sqlstate == "AC429"
    listed = json.loads(run(dsn, "tenant", "quotas", "--measure", "--json").stdout)
    mine = next(q for q in listed if q["tenant"] == shop)
    assert mine["used_channels"] == 1 and mine["used_bytes"] > 0 and mine["measured_at"]
    assert shop in run(dsn, "tenant", "quotas").stdout
    removed = run(dsn, "tenant", "quota", shop, "--remove")
    assert removed.returncode == 0 and "no quotas" in removed.stdout
    assert tenants.list_quotas(conn) == [q for q in tenants.list_quotas(conn) if q.tenant != shop]
    assert tenants.set_quota(conn, shop, max_bytes=10).max_bytes == 10  # type: ignore[union-attr]
    assert tenants.set_quota(conn, shop) is None
