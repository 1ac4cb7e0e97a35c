"""Actae migration runner.

Two kinds of SQL live in the repo:

* ``migrations/NNNN_name.sql``: forward-only schema changes, applied once each, in NNNN order.
  Each runs in its own transaction that first inserts its row into
  ``actae.schema_migrations`` (version, name, sha256 of the file), so a second migrator that
  slipped past the lock would collide on the primary key instead of applying it twice. A file
  edited after it was applied is refused, and nothing more is applied (a landed file's few
  earlier bytes that databases recorded are accepted: ``_EQUIVALENT_BYTES``). So is a
  database with a migration this installation does not know (a newer Actae migrated it), or
  with Actae's tables but no ``schema_migrations`` (its history was dropped). So is a new file
  numbered below the newest applied migration (a 0011 added after 0023 ran): it would run
  after the later ones, out of NNNN order, so it must be renumbered above the newest one
  (``status`` shows it as ``out-of-order``).
* The schema ``actae`` and ``actae.schema_migrations`` are created in the first migration's
  transaction: a first migrate that fails (say, by a role that may not create roles) leaves
  nothing behind.
* ``sql/*.sql`` (top level only): ``create or replace`` functions, re-applied on every run
  in one transaction, in sorted name order.

Where the files come from (``sql_root``): ``$ACTAE_SQL_ROOT`` when set (development), else the
copy shipped inside the installed package (``actae/_sql``, read with ``importlib.resources``),
else the repository checkout this module runs from (an editable install). Finding no
migration at all is an error, never a silent no-op.

A session advisory lock serialises concurrent migrators of one database. Roles are
cluster-wide and an advisory lock is not: the first migrations of two databases of one cluster
may both find role ``actae_owner`` missing and both create it. The later one then fails
(``duplicate key ... pg_authid_rolname_index``, or ``role ... already exists``) once the
other has committed; its transaction is rolled back and run again (at most
``_ROLE_RACE_RETRIES`` times, and only when a role appeared meanwhile), and now finds the
role. Any other error, or the same one with no new role, surfaces.

Files are sent as-is in one simple-query round trip each, so they must not contain psql
meta-commands or their own ``begin``/``commit``.

Hardening (the migrator is usually a superuser; the database may hold other roles' objects):

* every file runs with ``search_path = pg_catalog, pg_temp``, so a function or operator that
  another role planted in a writable schema (``public`` before PostgreSQL 15) can never be
  picked by an unqualified call in a DO block or migration, and with
  ``standard_conforming_strings = on``, so a backslash in a literal is a backslash;
* a pre-existing schema ``actae`` or table ``actae.schema_migrations`` must be owned by the
  migrating role, ``actae_owner`` or a superuser (or, for a non-superuser migrator, a role it
  belongs to); anything else is refused before anything is created in it.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import logging
import os
import re
import time
from collections.abc import Generator, Iterable
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict

# Advisory lock key shared by every Actae migrator: the bytes of "actae-mg" as a bigint.
LOCK_KEY = int.from_bytes(b"actae-mg", "big")

log = logging.getLogger(__name__)

_MIGRATION_FILE = re.compile(r"^(\d{4})_(\w+)\.sql$")

# The session every file runs in: a function or operator planted in a writable schema is never
# picked by an unqualified call, and a string literal means what it says whatever the
# database's or the caller's settings (standard_conforming_strings off made a pattern's
# backslash vanish, and 90_grants.sql then revoked every function from actae_agent). The
# files are UTF-8 and sent as they are: a UTF8 (or SQL_ASCII) database reads them so, one in
# another encoding reads them in its own (their few non-ASCII characters are in comments,
# which a LATIN1 database could not hold converted), whatever PGCLIENTENCODING says.
_SAFE_SESSION = b"""set search_path = pg_catalog, pg_temp; set standard_conforming_strings = on;
select pg_catalog.set_config('client_encoding', case
    when pg_catalog.current_setting('server_encoding') in ('UTF8', 'SQL_ASCII') then 'UTF8'
    else pg_catalog.current_setting('server_encoding') end, false)"""

# Owners of pre-existing actae objects that nobody else can have planted: (kind, name, owner).
_UNTRUSTED_OWNERS = b"""
select o.kind, o.name, r.rolname
from (
    select 'schema' as kind, 'actae' as name, n.nspowner as owner
    from pg_catalog.pg_namespace as n where n.nspname = 'actae'
    union all
    select 'table', 'actae.schema_migrations', c.relowner
    from pg_catalog.pg_class as c
    join pg_catalog.pg_namespace as n on n.oid = c.relnamespace
    where n.nspname = 'actae' and c.relname = 'schema_migrations'
) as o
join pg_catalog.pg_roles as r on r.oid = o.owner
where r.rolname operator(pg_catalog.<>) current_user
    and r.rolname operator(pg_catalog.<>) 'actae_owner'
    and not r.rolsuper
    and not (
        not (select u.rolsuper from pg_catalog.pg_roles as u where u.rolname = current_user)
        and pg_catalog.pg_has_role(current_user, r.oid, 'MEMBER')
    )
"""

_BOOTSTRAP = b"""
create schema if not exists actae;
create table if not exists actae.schema_migrations (
    version int primary key,
    name text not null,
    checksum text not null,
    applied_at timestamptz not null default clock_timestamp()
);
"""


# Retries of a migration whose transaction lost a race to create a role (see above).
_ROLE_RACE_RETRIES = 2

# How long a migration waits for a lock before it gives way, when the session sets no
# lock_timeout of its own (PGOPTIONS), and how long it keeps trying. A migration that alters
# a table waits for every transaction using it, and every call that arrives meanwhile queues
# behind the migration; agents' calls give up after their own 5 s (AGENT_ROLE_SETTINGS) and a
# tool's completion is sent again for 10 s only, so an unbounded wait behind one long
# transaction failed live calls and lost completions (their tools ran again). Each timed-out
# try is rolled back whole (nothing of it stays) and tried again after a pause in which
# the queued calls run.
LOCK_TIMEOUT = "2s"
LOCK_TRIES_SECONDS = 300.0
_LOCK_PAUSES = (0.5, 1.0, 2.0, 4.0)
_SHORT_LOCK_WAIT = b"""select pg_catalog.set_config('lock_timeout', %s, true)
where pg_catalog.current_setting('lock_timeout') in ('0', '0ms')"""

_ROLES = b"select rolname from pg_catalog.pg_roles"


class MigrationError(Exception):
    """A migration file or the database's migration history is not in a state we can apply.
    ``applied``: the migrations this run committed before it failed (they stay)."""

    def __init__(self, message: str, applied: Iterable[str] = ()) -> None:
        super().__init__(message)
        self.applied = list(applied)


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    path: Path
    checksum: str


@dataclass(frozen=True)
class MigrationStatus:
    version: int
    name: str
    # applied | pending | edited (file changed after apply) | missing (no file)
    # | out-of-order (not applied, numbered below the newest applied one: migrate refuses it)
    state: str
    applied_at: datetime | None


# Earlier bytes of landed migrations that databases may have recorded, accepted as the file
# itself: they differ from it in comments only (0020, 0023), or in a statement a later
# migration makes the same for every database (0022's first bytes bounded tool names by
# actae._limit('tool_name'), which a database upgraded from before 0006 does not have yet;
# 0024 re-creates that function). Any other change to a landed migration is refused, and
# tests/python/unit/test_migrations_frozen.py keeps every file at its landed bytes.
_EQUIVALENT_BYTES: dict[int, frozenset[str]] = {
    20: frozenset({"7987a728177b5c674fc22c4906fe6caa3d0469e9b26f1f7ef72356676ebe4973"}),
    22: frozenset({"0724012ab80c28bcfa211b3de987375b14ea151994ec31a847569d473734ac40"}),
    23: frozenset({"e755512fdb2908ad890e6c541eaba4127088e70c43f165daad60acea1cb8ee72"}),
}


def _same_bytes(m: Migration, checksum: str) -> bool:
    """True when a recorded checksum is m's file, as it is or as it landed earlier."""
    return checksum == m.checksum or checksum in _EQUIVALENT_BYTES.get(m.version, ())


def sql_root() -> Path:
    """Folder holding ``migrations/`` and ``sql/``: $ACTAE_SQL_ROOT, else the package's own
    copy (``actae/_sql`` in an installed wheel), else the repository checkout."""
    override = os.environ.get("ACTAE_SQL_ROOT")
    if override:
        return Path(override)
    shipped = importlib.resources.files("actae") / "_sql"  # absent in an editable install
    if isinstance(shipped, Path) and (shipped / "migrations").is_dir():
        return shipped
    return Path(__file__).resolve().parents[2]


def status_ok(rows: Iterable[MigrationStatus]) -> bool:
    """True when every migration is applied as written: none pending, edited or missing."""
    return all(row.state == "applied" for row in rows)


def find_migrations(root: Path) -> list[Migration]:
    """Migrations under root/migrations, sorted by version; a missing folder has none
    (``migrate`` and ``status`` refuse that: see ``_required_migrations``)."""
    found: dict[int, Migration] = {}
    folder = root / "migrations"
    for path in sorted(folder.glob("*.sql")) if folder.is_dir() else []:
        match = _MIGRATION_FILE.match(path.name)
        if not match:
            raise MigrationError(f"{path}: migration files are named NNNN_name.sql")
        version = int(match.group(1))
        if version in found:
            raise MigrationError(f"{path}: version {version} is used by {found[version].path}")
        checksum = hashlib.sha256(path.read_bytes()).hexdigest()
        found[version] = Migration(version, path.stem, path, checksum)
    return [found[v] for v in sorted(found)]


# How long a connection attempt of the migrator and the command line may take when nothing
# the user gave says: a server that accepts the connection and never answers (a stuck proxy)
# fails a deploy step instead of hanging it. The wait for another migrator's lock is not
# bounded (Ctrl-C ends it).
CONNECT_SECONDS = 10


def connect_timeout(dsn: str) -> dict[str, Any]:
    """``connect_timeout=CONNECT_SECONDS`` for psycopg.connect, or nothing when the DSN, its
    service (whose file is libpq's to read) or PGCONNECT_TIMEOUT / PGSERVICE may set one."""
    given = conninfo_to_dict(dsn)
    if ("connect_timeout" in given or "service" in given
            or os.environ.get("PGCONNECT_TIMEOUT") or os.environ.get("PGSERVICE")):
        return {}
    return {"connect_timeout": CONNECT_SECONDS}


def connect(dsn: str) -> psycopg.Connection[tuple[Any, ...]]:
    """An autocommit connection that gives up connecting as connect_timeout says (the
    migrator's, and the command line's for its administrator commands)."""
    return psycopg.connect(dsn, autocommit=True, client_encoding="UTF8", **connect_timeout(dsn))


def find_sql_files(root: Path) -> list[Path]:
    """Re-appliable files directly under root/sql, in sorted name order. Subfolders are not
    loaded: they hold SQL for other deployments (sql/citus/ is run by hand on Citus)."""
    folder = root / "sql"
    if not folder.is_dir():
        return []
    return sorted(folder.glob("*.sql"), key=lambda p: p.name)


def migrate(dsn: str, root: Path | None = None) -> list[str]:
    """Apply pending migrations, then re-apply sql/. Returns the names of applied migrations."""
    root = root or sql_root()
    migrations = _required_migrations(root)
    applied: list[str] = []
    with _locked_connection(dsn) as conn:
        conn.add_notice_handler(_log_warning)
        _refuse_untrusted_owners(conn)
        bootstrapped = _has_history(conn)
        if not bootstrapped:
            _refuse_lost_history(conn)
        recorded = _recorded(conn) if bootstrapped else {}
        _check_history(migrations, recorded)
        try:
            for m in migrations:
                if m.version in recorded:
                    continue
                _apply(conn, m, root, bootstrap=not bootstrapped)
                bootstrapped = True
                applied.append(m.name)
            with conn.transaction():
                for path in find_sql_files(root):
                    _execute_file(conn, path, root)
        except MigrationError as exc:
            if not applied:
                raise
            # What this run committed stays, and sql/ was not (re)loaded: say both, in the
            # one line a command prints.
            raise MigrationError(
                f"{exc} (after applying {', '.join(applied)}: those are committed, and sql/"
                " is not loaded, so its functions are missing or the previous ones until a"
                " migrate succeeds)", applied
            ) from exc
    return applied


def _log_warning(diag: psycopg.errors.Diagnostic) -> None:
    """A WARNING the SQL raised while migrating (tenants moved to their roles after a
    restore, actae._reconcile_tenant_names), logged: nobody reads the server's log for it."""
    if diag.severity_nonlocalized == "WARNING":
        log.warning("%s", diag.message_primary)


def _apply(conn: psycopg.Connection, m: Migration, root: Path, *, bootstrap: bool) -> None:
    """One migration in one transaction (with the bootstrap of schema actae and its
    schema_migrations first when ``bootstrap``: a failed first migration leaves nothing).
    Run again when it lost a race to create a role with another database's migrator, and
    when it timed out waiting for a lock (LOCK_TIMEOUT), for up to LOCK_TRIES_SECONDS."""
    races, tries = 0, 0
    deadline = time.monotonic() + LOCK_TRIES_SECONDS
    while True:
        roles_before = {row[0] for row in conn.execute(_ROLES).fetchall()}
        try:
            with conn.transaction():
                conn.execute(_SHORT_LOCK_WAIT, (LOCK_TIMEOUT,))
                if bootstrap:
                    conn.execute(_BOOTSTRAP)
                conn.execute(
                    "insert into actae.schema_migrations (version, name, checksum)"
                    " values (%s, %s, %s)",
                    (m.version, m.name, m.checksum),
                )
                _execute_file(conn, m.path, root)
            return
        except MigrationError as exc:
            cause = exc.__cause__
            if isinstance(cause, psycopg.errors.LockNotAvailable):
                pause = _LOCK_PAUSES[min(tries, len(_LOCK_PAUSES) - 1)]
                if time.monotonic() + pause > deadline:
                    raise MigrationError(
                        f"{exc} (tried for {LOCK_TRIES_SECONDS:.0f} s: a transaction holds a"
                        " lock it needs; pg_stat_activity and pg_locks show which)") from cause
                tries += 1
                log.warning("%s is waiting for a lock a transaction holds; trying again in"
                            " %s s (try %d)", m.name, pause, tries)
                time.sleep(pause)
                continue
            if races == _ROLE_RACE_RETRIES or not _lost_role_race(conn, exc, roles_before):
                raise
            races += 1


def _lost_role_race(conn: psycopg.Connection, exc: MigrationError, before: set[str]) -> bool:
    """True when exc is a duplicate role (unique violation on pg_authid_rolname_index, or
    duplicate_object) and a role that did not exist when the transaction began has been
    committed since: another migrator created it first, and a second run will find it."""
    cause = exc.__cause__
    if not isinstance(cause, psycopg.Error):
        return False
    role_index = (cause.sqlstate == "23505"
                  and cause.diag.constraint_name == "pg_authid_rolname_index")
    if not (role_index or cause.sqlstate == "42710"):
        return False
    return bool({row[0] for row in conn.execute(_ROLES).fetchall()} - before)


def status(dsn: str, root: Path | None = None) -> list[MigrationStatus]:
    """Applied/pending state of every migration file (and of recorded ones with no file)."""
    migrations = _required_migrations(root or sql_root())
    with connect(dsn) as conn:
        recorded = _recorded(conn) if _has_history(conn) else {}
    newest = max(recorded, default=0)
    result: list[MigrationStatus] = []
    for m in migrations:
        row = recorded.pop(m.version, None)
        if row is None:
            state = "out-of-order" if m.version < newest else "pending"
            result.append(MigrationStatus(m.version, m.name, state, None))
        else:
            state = "applied" if _same_bytes(m, row[1]) else "edited"
            result.append(MigrationStatus(m.version, m.name, state, row[2]))
    for version, (name, _, applied_at) in recorded.items():
        result.append(MigrationStatus(version, name, "missing", applied_at))
    return sorted(result, key=lambda s: s.version)


def _required_migrations(root: Path) -> list[Migration]:
    """find_migrations, raising when there is none: a wrong root must not look up to date."""
    migrations = find_migrations(root)
    if not migrations:
        raise MigrationError(
            f"no migrations found in {root / 'migrations'}: reinstall actae, or set"
            " ACTAE_SQL_ROOT to a folder holding migrations/ and sql/"
        )
    return migrations


@contextmanager
def _locked_connection(dsn: str) -> Generator[psycopg.Connection[tuple[Any, ...]]]:
    with connect(dsn) as conn:
        conn.execute(_SAFE_SESSION)
        conn.execute("select pg_catalog.pg_advisory_lock(%s)", (LOCK_KEY,))
        try:
            yield conn
        finally:
            if not conn.closed and not conn.broken:
                conn.execute("select pg_catalog.pg_advisory_unlock(%s)", (LOCK_KEY,))


def _refuse_untrusted_owners(conn: psycopg.Connection) -> None:
    """Raise when schema actae or actae.schema_migrations already exists and is owned by a
    role that could then replace the ledger's functions or forge its history."""
    for kind, name, owner in conn.execute(_UNTRUSTED_OWNERS).fetchall():
        raise MigrationError(
            f"{kind} {name} is owned by {owner}, not by the migrating role, actae_owner or a"
            " superuser: another role may have created it to take over the ledger. Inspect it,"
            f" then drop it or `alter {kind} {name} owner to actae_owner` before migrating"
        )


def _refuse_lost_history(conn: psycopg.Connection) -> None:
    """Raise when Actae's tables exist without actae.schema_migrations: the history was
    dropped, and applying the first migration again would fail halfway or worse."""
    row = conn.execute("select pg_catalog.to_regclass('actae.channels')").fetchone()
    if row and row[0]:
        raise MigrationError(
            "schema actae holds Actae's tables but no actae.schema_migrations (its history of"
            " applied migrations was dropped): restore that table, or the database, from a"
            " backup before migrating"
        )


def _has_history(conn: psycopg.Connection) -> bool:
    """True when actae.schema_migrations exists (the first migration created it)."""
    row = conn.execute("select pg_catalog.to_regclass('actae.schema_migrations')").fetchone()
    return bool(row and row[0])


def _recorded(conn: psycopg.Connection) -> dict[int, tuple[str, str, datetime]]:
    rows = conn.execute(
        "select version, name, checksum, applied_at from actae.schema_migrations"
    ).fetchall()
    return {version: (name, checksum, at) for version, name, checksum, at in rows}


def _check_history(
    migrations: list[Migration], recorded: dict[int, tuple[str, str, datetime]]
) -> None:
    files = {m.version: m for m in migrations}
    for version, (name, checksum, _) in sorted(recorded.items()):
        m = files.get(version)
        if m is None and version > migrations[-1].version:
            raise MigrationError(
                f"the database was migrated by a newer Actae: migration {name} is recorded in"
                f" actae.schema_migrations, and this installation's newest is"
                f" {migrations[-1].path.stem}; upgrade actae (pip install -U actae) to use it"
            )
        if m is None:
            raise MigrationError(
                f"migration {name} is recorded in actae.schema_migrations but its file is gone"
            )
        if not _same_bytes(m, checksum):
            raise MigrationError(
                f"{m.path.name} was edited after it was applied (recorded sha256 "
                f"{checksum[:12]}, file now {m.checksum[:12]}); add a new migration instead,"
                " or for a throwaway database start over (`make clean`)"
            )
    if not recorded:
        return
    newest = max(recorded)
    free = max(newest, migrations[-1].version) + 1
    for m in migrations:
        if m.version < newest and m.version not in recorded:
            rest = m.path.name.split("_", 1)[1]
            raise MigrationError(
                f"{m.path.name} is numbered below {recorded[newest][0]}, the newest applied"
                f" migration, so it would run out of NNNN order: renumber it (e.g."
                f" {free:04d}_{rest})"
            )


def _execute_file(conn: psycopg.Connection, path: Path, root: Path) -> None:
    text = path.read_bytes()
    try:
        conn.execute(_SAFE_SESSION)  # a previous file may have changed it
        conn.execute(text)
    except psycopg.Error as exc:
        where = path.relative_to(root).as_posix()
        position = exc.diag.statement_position  # 1-based, in characters of the whole file
        if position and position.isdigit():
            line = text.decode(errors="replace")[: int(position)].count("\n") + 1
            where += f" line {line}"
        message = exc.diag.message_primary or str(exc)
        raise MigrationError(f"{where}: {message} [{exc.sqlstate}]") from exc


# Session settings for agent logins (docs/hardening.md): an abandoned open transaction is
# ended, a blocked statement fails fast, a runaway one is stopped. PostgreSQL applies a
# role's settings only when that role itself logs in (never through membership), so they
# are set on each login, not on actae_agent or a tenant role.
AGENT_ROLE_SETTINGS: dict[str, str] = {
    "idle_in_transaction_session_timeout": "30s",
    "lock_timeout": "5s",
    "statement_timeout": "1min",
}

# Login roles that act as agents: members of actae_agent (directly or through a tenant),
# neither superusers nor operators (purge and measure_usage may run longer than an agent).
_AGENT_LOGINS = b"""
select r.rolname from pg_catalog.pg_roles as r
where r.rolcanlogin and not r.rolsuper
    and pg_catalog.pg_has_role(r.oid, 'actae_agent', 'MEMBER')
    and not pg_catalog.pg_has_role(r.oid, 'actae_operator', 'MEMBER')
order by r.rolname
"""


def apply_role_settings(
    dsn: str, logins: Iterable[str] | None = None,
    settings: dict[str, str] | None = None,
) -> list[str]:
    """``alter role <login> in database <this one> set <name> = <value>`` for every setting
    (default AGENT_ROLE_SETTINGS) and every login given, or, when none is given, every agent
    login (member of actae_agent, not superuser, not operator). Takes effect at the login's
    next connection. Returns the logins changed."""
    chosen = AGENT_ROLE_SETTINGS if settings is None else settings
    with connect(dsn) as conn:
        conn.execute(_SAFE_SESSION)
        names = list(logins) if logins else [
            row[0] for row in conn.execute(_AGENT_LOGINS).fetchall()]
        database = conn.info.dbname
        with conn.transaction():
            for login in names:
                for name, value in chosen.items():
                    conn.execute(sql.SQL("alter role {} in database {} set {} = {}").format(
                        sql.Identifier(login), sql.Identifier(database),
                        sql.Identifier(name), sql.Literal(value)))
    return names


# PostgreSQL's advisory-lock functions, each as `pg_catalog.name(argument types)`.
_ADVISORY = b"""
from pg_catalog.pg_proc as p
where p.pronamespace = 'pg_catalog'::regnamespace
    and (p.proname like 'pg\\_advisory\\_%' or p.proname like 'pg\\_try\\_advisory\\_%')
"""
_ADVISORY_FUNCTIONS = b"""
select pg_catalog.format('pg_catalog.%I(%s)', p.proname,
    pg_catalog.pg_get_function_identity_arguments(p.oid))""" + _ADVISORY + b"order by 1"
_REVOKE_LOCKS = b"""
do $revoke$
declare
    v_function regprocedure;
begin
    for v_function in select p.oid::regprocedure """ + _ADVISORY + b""" loop
        execute pg_catalog.format('revoke execute on function %s from public', v_function);
        execute pg_catalog.format('grant execute on function %s to actae_owner', v_function);
    end loop;
end;
$revoke$
"""


def revoke_public_locks(dsn: str) -> list[str]:
    """``revoke execute`` on PostgreSQL's advisory-lock functions from public in this
    database, granted to actae_owner instead (Actae's functions take their guards as that
    role). Every Actae guard is an advisory lock on a key anyone can compute from a channel
    id (or read in pg_locks), so any role that may call these functions can hold one and make
    another tenant's appends, claims and completions of that channel wait out their lock
    timeout. Grant EXECUTE back to a role of another application that needs them. Returns
    the functions."""
    with connect(dsn) as conn:
        conn.execute(_SAFE_SESSION)
        with conn.transaction():
            conn.execute(_REVOKE_LOCKS)
            return [row[0] for row in conn.execute(_ADVISORY_FUNCTIONS).fetchall()]


def revoke_public_connect(dsn: str) -> str:
    """``revoke connect, temporary on database <this one> from public``, then grant CONNECT
    to Actae's roles (their members inherit it). A role with no grant can then no longer
    connect (and so fill the NOTIFY queue or hold locks). Returns the database name."""
    with connect(dsn) as conn:
        conn.execute(_SAFE_SESSION)
        database = sql.Identifier(conn.info.dbname)
        with conn.transaction():
            conn.execute(sql.SQL(
                "revoke connect, temporary on database {} from public").format(database))
            conn.execute(sql.SQL(
                "grant connect on database {} to actae_owner, actae_agent, actae_auditor,"
                " actae_operator").format(database))
        return conn.info.dbname
