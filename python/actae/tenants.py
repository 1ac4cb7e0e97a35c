"""Tenants: create a tenant, add logins to it, set its quotas (docs/tenants.md).

A tenant is a NOLOGIN role granted ``actae_agent``; a login belongs to a tenant by being
granted that role. These helpers issue the DDL (``CREATE ROLE``, ``GRANT``) as the connected
role, which must be allowed to create roles and grant ``actae_agent`` (a superuser, or a
role with CREATEROLE that holds ``actae_agent`` WITH ADMIN OPTION). They are not SQL
functions on purpose: a SECURITY DEFINER function would need an owner with CREATEROLE, and
``actae_owner`` must not hold it (docs/tenants.md). Like ``actae.migrate``, this is an
administrator's module: it sends its own SQL, not the agent API of ``actae.calls``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, LiteralString

import psycopg
from psycopg import sql

from actae.client import _cursor  # pyright: ignore[reportPrivateUsage]
from actae.errors import InvalidInput, map_error

# Role names Actae reserves: never a tenant, never a login added to one.
RESERVED = ("actae_owner", "actae_agent", "actae_auditor", "actae_operator")

_ROLE = """
select r.rolcanlogin,
       exists (select from pg_catalog.pg_auth_members as m
               where m.member = r.oid and m.roleid = 'actae_agent'::regrole) as agent
from pg_catalog.pg_roles as r where r.rolname = %s
"""

# What granting a tenant to a login would join: the tenants (other than the one given) that
# the login, or any role that is a member of it through any chain of grants (a login that
# inherits from it), already belongs to as the SQL counts tenants (actae._caller_tenants:
# roles reached through any chain of grants that are granted actae_agent directly,
# actae_operator excepted; a role granted actae_agent directly is its own tenant). Every such
# member would then read the given tenant's channels too (actae._owns). Superusers, members
# of every role already, are left out.
_TENANTS_BELOW = """
with recursive below (role_oid) as (
    select r.oid from pg_catalog.pg_roles as r where r.rolname = %(login)s
    union
    select a.member from pg_catalog.pg_auth_members as a join below on a.roleid = below.role_oid
), up (member, role_oid) as (
    select below.role_oid, below.role_oid from below
    union
    select up.member, a.roleid from pg_catalog.pg_auth_members as a join up
        on a.member = up.role_oid
)
select m.rolname, t.rolname
from up join pg_catalog.pg_roles as m on m.oid = up.member
join pg_catalog.pg_roles as t on t.oid = up.role_oid
where not m.rolsuper and t.rolname not in ('actae_operator', %(tenant)s)
  and exists (select from pg_catalog.pg_auth_members as a
              where a.member = t.oid and a.roleid = 'actae_agent'::regrole)
order by m.rolname <> %(login)s, 1, 2
"""

# A global auditor: member of actae_auditor other than through actae_operator (a per-tenant
# operator is a tenant login granted actae_operator, docs/tenants.md).
_GLOBAL_AUDITOR = """
select pg_catalog.pg_has_role(%(login)s, 'actae_auditor', 'MEMBER')
   and not pg_catalog.pg_has_role(%(login)s, 'actae_operator', 'MEMBER')
"""

# Every role that is a member of a tenant, directly or through other roles: whoever holds
# its rights and reads its channels.
_LIST = """
select t.rolname,
       array(with recursive m (role_oid) as (
                 select a.member from pg_catalog.pg_auth_members as a where a.roleid = t.oid
                 union
                 select a.member from pg_catalog.pg_auth_members as a
                 join m on a.roleid = m.role_oid)
             select l.rolname from m join pg_catalog.pg_roles as l on l.oid = m.role_oid
             order by 1)::text[]
from pg_catalog.pg_roles as t
join pg_catalog.pg_auth_members as a
  on a.member = t.oid and a.roleid = 'actae_agent'::regrole
where not t.rolcanlogin and t.rolname <> 'actae_operator'
order by 1
"""


@dataclass(frozen=True)
class Tenant:
    """A tenant role and every role that is a member of it, directly or through other roles
    (its logins, their groups, per-tenant auditors)."""

    name: str
    logins: tuple[str, ...]


def _check_name(name: str, argument: str) -> None:
    if not 1 <= len(name.encode()) <= 63 or "\x00" in name:
        raise InvalidInput(f"{argument} must be a role name of 1..63 bytes",
                           {"argument": argument})
    if name in RESERVED:
        raise InvalidInput(f"{argument} {name} is one of Actae's own roles",
                           {"argument": argument, argument: name})


def _rows(conn: psycopg.Connection[Any], statement: LiteralString,
          params: tuple[Any, ...] | dict[str, Any] = ()) -> list[tuple[Any, ...]]:
    """statement's rows as tuples, read as the driver reads its own (actae.client._cursor:
    whatever cursor factory, row factory or DateStyle the caller's connection has)."""
    rows: list[tuple[Any, ...]] = _cursor(conn, False).execute(statement, params).fetchall()
    return rows


def _role(conn: psycopg.Connection[Any], name: str) -> tuple[bool, bool] | None:
    row = next(iter(_rows(conn, _ROLE, (name,))), None)
    return None if row is None else (bool(row[0]), bool(row[1]))


def create_tenant(conn: psycopg.Connection[Any], name: str) -> Tenant:
    """Create tenant ``name`` (a NOLOGIN role granted actae_agent). Creating an existing
    tenant returns it unchanged; an existing role that is not a tenant (a login, or a role
    not granted actae_agent) is InvalidInput, nothing changed."""
    _check_name(name, "tenant")
    with conn.transaction():
        found = _role(conn, name)
        if found is None:
            conn.execute(sql.SQL("create role {} nologin").format(sql.Identifier(name)))
            conn.execute(sql.SQL("grant actae_agent to {}").format(sql.Identifier(name)))
        elif found != (False, True):
            raise InvalidInput(
                f"role {name} exists and is not a tenant (a NOLOGIN role granted actae_agent)",
                {"argument": "tenant", "tenant": name, "login": found[0], "agent": found[1]})
    return get_tenant(conn, name)


def add_tenant_login(conn: psycopg.Connection[Any], tenant: str, login: str, *,
                     create: bool = False) -> Tenant:
    """Grant tenant role ``tenant`` to ``login`` (created as a LOGIN role without a password
    when ``create`` and it does not exist). Refused (InvalidInput, nothing changed) when the
    tenant is not one, the login does not exist (and not ``create``), is not a login, is
    granted actae_agent directly (it is then its own tenant), already belongs to another
    tenant (a login belongs to exactly one), has a member (a role that inherits from it) in
    another tenant (that member would then read both), or is granted actae_auditor other
    than through actae_operator (its table reads are global). Adding it again is a no-op."""
    _check_name(tenant, "tenant")
    _check_name(login, "login")
    with conn.transaction():
        if _role(conn, tenant) != (False, True):
            raise InvalidInput(f"tenant {tenant} does not exist",
                               {"argument": "tenant", "tenant": tenant})
        found = _role(conn, login)
        if found is None and create:
            conn.execute(sql.SQL("create role {} login").format(sql.Identifier(login)))
            found = (True, False)
        if found is None or not found[0]:
            raise InvalidInput(f"login {login} does not exist or cannot log in",
                               {"argument": "login", "login": login})
        if found[1]:
            raise InvalidInput(
                f"login {login} is granted actae_agent directly, so it is its own tenant;"
                " revoke actae_agent from it first", {"argument": "login", "login": login})
        joined = _rows(conn, _TENANTS_BELOW, {"login": login, "tenant": tenant})
        if joined:
            member, other = joined[0]
            who = "" if member == login else f" through role {member}, a member of it,"
            raise InvalidInput(
                f"login {login}{who} already belongs to tenant {other}",
                {"argument": "login", "login": login,
                 "members": sorted({m for m, _ in joined}),
                 "tenants": sorted({t for _, t in joined})})
        if _rows(conn, _GLOBAL_AUDITOR, {"login": login})[0][0]:
            raise InvalidInput(
                f"login {login} is granted actae_auditor, whose table reads are global;"
                " revoke it first (docs/tenants.md: per-tenant auditors)",
                {"argument": "login", "login": login})
        conn.execute(sql.SQL("grant {} to {}").format(sql.Identifier(tenant),
                                                      sql.Identifier(login)))
    return get_tenant(conn, tenant)


def get_tenant(conn: psycopg.Connection[Any], name: str) -> Tenant:
    """Tenant ``name`` with its members. Raises InvalidInput when it is not a tenant."""
    for tenant in list_tenants(conn):
        if tenant.name == name:
            return tenant
    raise InvalidInput(f"tenant {name} does not exist", {"argument": "tenant", "tenant": name})


def list_tenants(conn: psycopg.Connection[Any]) -> list[Tenant]:
    """Every tenant role (NOLOGIN, granted actae_agent) with its members, by name. Logins
    granted actae_agent directly (each its own tenant) are not listed."""
    return [Tenant(str(name), tuple(logins)) for name, logins in _rows(conn, _LIST)]


def assign_tenant(conn: psycopg.Connection[Any], channel_id: str, tenant: str) -> None:
    """Move a channel and its executions to ``tenant`` (``actae.assign_tenant``: operator
    only), e.g. a channel written before tenants existed. Raises InvalidInput / NotFound."""
    try:
        conn.execute("select * from actae.assign_tenant(%s, %s)", (channel_id, tenant))
    except psycopg.Error as exc:
        raise map_error(exc) from None


@dataclass(frozen=True)
class Quota:
    """A tenant's quotas (None: no limit) and its usage as ``actae.measure_usage`` last
    measured it (None until then)."""

    tenant: str
    max_channels: int | None
    max_bytes: int | None
    max_events_per_channel: int | None
    used_bytes: int | None
    used_channels: int | None
    measured_at: datetime | None


_QUOTA_ROW = ("q.tenant::regrole::text, q.max_channels, q.max_bytes, q.max_events_per_channel,"
              " q.used_bytes, q.used_channels, q.measured_at")
_SET_QUOTA = f"select {_QUOTA_ROW} from actae.set_quota(%s, %s, %s, %s) as q"
_QUOTAS = f"select {_QUOTA_ROW} from actae.quotas as q order by 1"
_MEASURE = f"select {_QUOTA_ROW} from actae.measure_usage() as q order by 1"


def _quotas(conn: psycopg.Connection[Any], statement: LiteralString,
            params: tuple[Any, ...] = ()) -> list[Quota]:
    try:
        rows = _rows(conn, statement, params)
    except psycopg.Error as exc:
        raise map_error(exc) from None
    return [Quota(*row) for row in rows]


def set_quota(conn: psycopg.Connection[Any], tenant: str, *, max_channels: int | None = None,
              max_bytes: int | None = None,
              max_events_per_channel: int | None = None) -> Quota | None:
    """Set ``tenant``'s quotas (``actae.set_quota``: operator only); every limit None
    removes them (returns None). Raises InvalidInput for a role that is no tenant or a
    negative limit."""
    found = _quotas(conn, _SET_QUOTA, (tenant, max_channels, max_bytes, max_events_per_channel))
    return found[0] if found else None


def list_quotas(conn: psycopg.Connection[Any], *, measure: bool = False) -> list[Quota]:
    """Every tenant with quotas, by name; with ``measure``, ``actae.measure_usage`` first
    records their current usage (operator only; it reads the ledger tables whole)."""
    return _quotas(conn, _MEASURE if measure else _QUOTAS)
