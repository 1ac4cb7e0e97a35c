"""Process plumbing shared by the reliability scenarios.

Child processes speak one JSON object per line on stdout and take commands one per line on
stdin, so the supervisor always knows what a worker last did before it was killed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any, TypeVar

import psycopg
from psycopg import sql
from psycopg.conninfo import make_conninfo

from actae.errors import ConnectionFailed
from actae.migrate import migrate

from . import REPO

T = TypeVar("T")


def child_env() -> dict[str, str]:
    """Environment for a child: unbuffered, so the supervisor sees every line at once."""
    return {**os.environ, "PYTHONUNBUFFERED": "1"}


def spawn(module: str, config: Mapping[str, Any]) -> subprocess.Popen[str]:
    """Start ``python -m tests.python.reliability.<module> '<config json>'`` in the repository
    root (so the package resolves) with pipes on stdin/stdout."""
    return subprocess.Popen(
        [sys.executable, "-m", f"{__package__}.{module}", json.dumps(config)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=child_env(),
        cwd=str(REPO),
    )


def emit(**fields: Any) -> None:
    """Child side: one JSON line on stdout, flushed at once (the supervisor may kill us next)."""
    sys.stdout.write(json.dumps(fields, default=str) + "\n")
    sys.stdout.flush()


def read_message(stream: IO[str]) -> dict[str, Any] | None:
    """Supervisor side: the next JSON line from a child, or None at end of stream."""
    line = stream.readline()
    if not line:
        return None
    return json.loads(line)


def send(proc: subprocess.Popen[str], command: str) -> None:
    assert proc.stdin is not None
    proc.stdin.write(command + "\n")
    proc.stdin.flush()


def expect(proc: subprocess.Popen[str], kind: str) -> dict[str, Any]:
    """Read messages from a child until one with ``e == kind``; fail on end of stream."""
    assert proc.stdout is not None
    while True:
        message = read_message(proc.stdout)
        if message is None:
            raise AssertionError(f"child {proc.pid} ended (rc={proc.wait()}) before {kind!r}")
        if message.get("e") == kind:
            return message


def retry_connection(call: Callable[[], T], on_error: Callable[[str], None] | None = None,
                     deadline_seconds: float = 90.0) -> T:
    """Run ``call``, retrying while PostgreSQL is unreachable (restart, dropped connection).

    Every Actae call is safe to repeat: a claim replays or reports in_progress, completing
    twice with the same token and result is a no-op, heartbeats extend, and record_event with
    an operation_id replays.
    """
    deadline = time.monotonic() + deadline_seconds
    while True:
        try:
            return call()
        except (psycopg.OperationalError, ConnectionFailed) as exc:
            if time.monotonic() > deadline:
                raise
            if on_error is not None:
                on_error(type(exc).__name__)
            time.sleep(0.2)


@dataclass(frozen=True)
class TableDigest:
    """Row counts and an order-independent hash of every row version of every Actae table.

    Any insert, update or delete creates or removes a row version, and each version has its
    own (ctid, xmin): equal digests mean no row was added, removed or changed. Hashing the
    version ids instead of the contents keeps the digest cheap when rows hold megabytes.
    """

    rows: tuple[tuple[str, int, int], ...]


def table_digest(conn: psycopg.Connection[Any]) -> TableDigest:
    """The digest of every table in schema actae (found in the catalog, so new ones count)."""
    names = [r[0] for r in conn.execute(
        "select c.oid::regclass::text from pg_catalog.pg_class as c"
        " where c.relnamespace = 'actae'::regnamespace and c.relkind = 'r' order by 1")]
    digest_sql = " union all ".join(
        f"select '{name}' as name, count(*) as n,"
        f" coalesce(sum(hashtext(t.ctid::text || ':' || t.xmin::text)), 0) as h"
        f" from {name} as t"
        for name in names
    )
    rows = conn.execute(digest_sql).fetchall()
    return TableDigest(tuple((str(r[0]), int(r[1]), int(r[2])) for r in rows))


@contextmanager
def scratch_database(dsn: str) -> Iterator[str]:
    """A new database on the same server, migrated, dropped afterwards: for suites whose
    generated rows (deep JSON, lapsed leases, random channels) other suites should not see."""
    name = f"actae_rel_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
        try:
            scratch = make_conninfo(dsn, dbname=name)
            migrate(scratch)
            yield scratch
        finally:
            admin.execute(sql.SQL("drop database if exists {} with (force)").format(
                sql.Identifier(name)))
