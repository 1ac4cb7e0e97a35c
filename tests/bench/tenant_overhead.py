"""What tenant checks cost on the hot path: claim+complete and replay, before vs after.

`.ci/with-db.sh .venv/bin/python tests/bench/tenant_overhead.py [--base main] [--seconds 2]
[--rounds 7]`

Three databases on the server of $ACTAE_DSN: `tenant_before` migrated from the git ref
--base (the code without tenants), `tenant_after` and `tenant_control` from this tree (the
control is an A/A check: control/after shows how far two identical setups differ on this
machine right now). All are driven by the same non-superuser login, a member of a NOLOGIN
tenant role granted actae_agent (so the checks really run: a superuser passes pg_has_role
without looking at memberships). Each round measures every (path, database) pair for
--seconds, in rotating order, each call its own transaction through psycopg with prepared
statements: claim+complete (two commits), the replay of a completed key, and the bare
primary-key read of that row (as the administrator: the floor of a replay, issue 18). Besides
operations per second (which with an fsync per commit swing with the disk), it reads the
server backend's own CPU time per operation from /proc/<pid>/schedstat: the work the
functions and their commits cost the server, which is what the tenant checks add to. The
table shows medians and ratios.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tarfile
import tempfile
import uuid
from collections.abc import Callable
from io import BytesIO
from pathlib import Path
from typing import Any

import psycopg
from backend_cpu import rate
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.types.json import Jsonb

from actae.migrate import migrate

ROOT = Path(__file__).resolve().parents[2]
TENANT, LOGIN = "bench_tenant", "bench_tenant_login"
CLAIM = "select execution_id, claim_token from actae.claim_execution(%s, %s, %s, %s)"
COMPLETE = "select status from actae.complete_execution(%s, %s, %s, %s)"
REPLAY = "select outcome from actae.claim_execution(%s, %s, %s, %s)"
PARAMS = Jsonb({"q": "actae"})
RESULT = Jsonb({"ok": True})


def _tree_of(ref: str, into: Path) -> Path:
    """migrations/ and sql/ of git ref `ref`, extracted under `into`."""
    blob = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "migrations", "sql"],
                          check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(blob)) as tar:
        tar.extractall(into, filter="data")
    return into


def _database(admin: str, name: str, root: Path) -> str:
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("drop database if exists {} with (force)").format(
            sql.Identifier(name)))
        conn.execute(sql.SQL("create database {}").format(sql.Identifier(name)))
    dsn = make_conninfo(admin, dbname=name)
    migrate(dsn, root)
    return dsn


def _roles(admin: str) -> None:
    with psycopg.connect(admin, autocommit=True) as conn:
        for role in (LOGIN, TENANT):
            conn.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(role)))
        conn.execute(sql.SQL("create role {} nologin").format(sql.Identifier(TENANT)))
        conn.execute(sql.SQL("grant actae_agent to {}").format(sql.Identifier(TENANT)))
        conn.execute(sql.SQL("create role {} login").format(sql.Identifier(LOGIN)))
        conn.execute(sql.SQL("grant {} to {}").format(sql.Identifier(TENANT),
                                                      sql.Identifier(LOGIN)))


def _claim_complete(conn: psycopg.Connection[Any]) -> Callable[[], None]:
    channel = f"bench-{uuid.uuid4().hex[:8]}"
    counter = iter(range(10**9))

    def op() -> None:
        row = conn.execute(CLAIM, (channel, f"k{next(counter)}", "search", PARAMS),
                           prepare=True).fetchone()
        assert row is not None
        conn.execute(COMPLETE, (row[0], row[1], RESULT, channel), prepare=True).fetchone()
    return op


def _replay(conn: psycopg.Connection[Any]) -> Callable[[], None]:
    channel = f"replay-{uuid.uuid4().hex[:8]}"
    row = conn.execute(CLAIM, (channel, "k", "search", PARAMS)).fetchone()
    assert row is not None
    conn.execute(COMPLETE, (row[0], row[1], RESULT, channel)).fetchone()

    def op() -> None:
        got = conn.execute(REPLAY, (channel, "k", "search", PARAMS), prepare=True).fetchone()
        assert got is not None and got[0] == "replayed"
    return op


def _bare_read(conn: psycopg.Connection[Any]) -> Callable[[], None]:
    """The primary-key read of a completed key's row, as the administrator (`conn`): the
    login that writes it has no table access."""
    channel = f"bare-{uuid.uuid4().hex[:8]}"
    with psycopg.connect(make_conninfo(conn.info.dsn, user=LOGIN), autocommit=True) as agent:
        row = agent.execute(CLAIM, (channel, "k", "search", PARAMS)).fetchone()
        assert row is not None
        agent.execute(COMPLETE, (row[0], row[1], RESULT, channel)).fetchone()
    read = "select e.* from actae.executions as e where e.channel_id = %s and e.key_name = %s"

    def op() -> None:
        assert conn.execute(read, (channel, "k"), prepare=True).fetchone() is not None
    return op


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--base", default="main")
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    import os
    admin = os.environ["ACTAE_DSN"]
    _roles(admin)
    with tempfile.TemporaryDirectory() as tmp:
        dsns = {"before": _database(admin, "tenant_before", _tree_of(args.base, Path(tmp))),
                "after": _database(admin, "tenant_after", ROOT),
                "control": _database(admin, "tenant_control", ROOT)}
    login = {k: make_conninfo(v, user=LOGIN) for k, v in dsns.items()}
    conns = {k: psycopg.connect(v, autocommit=True) for k, v in login.items()}
    admins = {k: psycopg.connect(v, autocommit=True) for k, v in dsns.items()}
    paths: dict[str, Callable[[psycopg.Connection[Any]], Callable[[], None]]] = {
        "claim+complete": _claim_complete, "replay": _replay, "bare PK read": _bare_read}
    names = ["before", "after", "control"]
    rates: dict[tuple[str, str], list[float]] = {}
    cpus: dict[tuple[str, str], list[float]] = {}
    for r in range(args.rounds):
        order = names[r % 3:] + names[:r % 3]
        for path, make in paths.items():
            for db in order:
                conn = admins[db] if path == "bare PK read" else conns[db]
                ops, cpu = rate(conn, make(conn), args.seconds)
                rates.setdefault((path, db), []).append(ops)
                cpus.setdefault((path, db), []).append(cpu)
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    server = conninfo_to_dict(admin)
    print(f"server {server.get('host')}:{server.get('port')}, login {LOGIN} in tenant {TENANT},"
          f" {args.rounds} rounds x {args.seconds} s, c=1, one transaction per call, medians")
    for title, table, unit in (("operations per second", rates, "ops/s"),
                               ("server backend CPU per operation", cpus, "us")):
        print(f"\n{title}")
        print(f"{'path (' + unit + ')':<24}{'before':>9}{'after':>9}{'control':>9}"
              f"{'after/before':>14}{'control/after':>15}")
        for path in paths:
            before, after, control = (statistics.median(table[(path, n)]) for n in names)
            print(f"{path:<24}{before:>9.1f}{after:>9.1f}{control:>9.1f}"
                  f"{after / before:>14.3f}{control / after:>15.3f}")
    bare = {n: statistics.median(cpus[("bare PK read", n)]) for n in names}
    print("\nreplay backend CPU / bare PK read backend CPU: " + ", ".join(
        f"{n} {statistics.median(cpus[('replay', n)]) / bare[n]:.2f}x" for n in names))
    for conn in [*conns.values(), *admins.values()]:
        conn.close()


if __name__ == "__main__":
    main()
