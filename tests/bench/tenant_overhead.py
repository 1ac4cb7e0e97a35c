"""What tenant checks cost on the hot path: claim+complete and replay, before vs after.

`.ci/with-db.sh .venv/bin/python tests/bench/tenant_overhead.py [--base main] [--seconds 2]
[--rounds 7]`

Three databases on the server of $ACTAE_DSN: `tenant_before` migrated from the git ref
--base (the code without tenants), `tenant_after` and `tenant_control` from this tree (the
control is an A/A check: control/after shows how far two identical setups differ on this
machine right now). All are driven by the same non-superuser login, a member of a NOLOGIN
tenant role granted actae_agent (so the checks really run: a superuser passes pg_has_role
without looking at memberships). Each round measures every (path, database) pair for
--seconds, in rotating order: claim+complete and replay through psycopg with prepared
statements (one commit per call), and "server" paths that run 2000 claim+complete pairs (or
replays) in one DO block, which is the functions' server CPU without commits and round trips.
The table shows the median per pair and the ratios.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import uuid
from collections.abc import Callable
from io import BytesIO
from pathlib import Path
from typing import Any

import psycopg
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


SERVER_PAIRS = """
do $$
declare r record; c text := 'loop-' || md5(random()::text);
begin
  for i in 1..2000 loop
    select * into r from actae.claim_execution(c, 'k' || i, 'search', '{"q": "actae"}');
    perform actae.complete_execution(r.execution_id, r.claim_token, '{"ok": true}', c);
  end loop;
end $$
"""

SERVER_REPLAYS = """
do $$
declare r record; c text := 'loopr-' || md5(random()::text);
begin
  select * into r from actae.claim_execution(c, 'k', 'search', '{"q": "actae"}');
  perform actae.complete_execution(r.execution_id, r.claim_token, '{"ok": true}', c);
  for i in 1..2000 loop
    perform actae.claim_execution(c, 'k', 'search', '{"q": "actae"}');
  end loop;
end $$
"""


SERVER_BARE_READ = """
do $$
declare r actae.executions; c text := 'loopb-' || md5(random()::text);
begin
  perform actae.complete_execution(e.execution_id, e.claim_token, '{"ok": true}', c)
  from actae.claim_execution(c, 'k', 'search', '{"q": "actae"}') as e;
  for i in 1..2000 loop
    select e.* into r from actae.executions as e where e.channel_id = c and e.key_name = 'k';
  end loop;
end $$
"""


def _server(statement: str) -> Callable[[psycopg.Connection[Any]], Callable[[], None]]:
    """2000 operations in one statement; the op counts as 2000."""
    def make(conn: psycopg.Connection[Any]) -> Callable[[], None]:
        def op() -> None:
            conn.execute(statement)
        return op
    return make


def _rate(op: Callable[[], None], seconds: float, per_op: int = 1) -> float:
    for _ in range(50 // per_op + 1):
        op()
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        op()
        done += per_op
    return done / (time.perf_counter() - start)


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
    # The bare primary-key read of the replayed row (the floor of a replay, issue 18): as the
    # administrator, since the login has no table access; same loop shape as the replays.
    admins = {k: psycopg.connect(v, autocommit=True) for k, v in dsns.items()}
    paths: dict[str, tuple[Callable[[psycopg.Connection[Any]], Callable[[], None]], int]] = {
        "claim+complete": (_claim_complete, 1), "replay": (_replay, 1),
        "server claim+complete": (_server(SERVER_PAIRS), 2000),
        "server replay": (_server(SERVER_REPLAYS), 2000),
        "server bare PK read": (_server(SERVER_BARE_READ), 2000),
    }
    names = ["before", "after", "control"]
    rates: dict[tuple[str, str], list[float]] = {}
    for r in range(args.rounds):
        order = names[r % 3:] + names[:r % 3]
        for path, (make, per_op) in paths.items():
            for db in order:
                conn = admins[db] if path == "server bare PK read" else conns[db]
                rates.setdefault((path, db), []).append(_rate(make(conn), args.seconds, per_op))
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr, flush=True)
    server = conninfo_to_dict(admin)
    print(f"server {server.get('host')}:{server.get('port')}, login {LOGIN} in tenant {TENANT},"
          f" {args.rounds} rounds x {args.seconds} s, c=1, medians (ops/s)")
    print(f"{'path':<24}{'before':>9}{'after':>9}{'control':>9}{'after/before':>14}"
          f"{'control/after':>15}")
    for path in paths:
        before, after, control = (statistics.median(rates[(path, n)]) for n in names)
        print(f"{path:<24}{before:>9.0f}{after:>9.0f}{control:>9.0f}{after / before:>14.3f}"
              f"{control / after:>15.3f}")
    replay = {n: statistics.median(rates[("server replay", n)]) for n in names}
    bare = {n: statistics.median(rates[("server bare PK read", n)]) for n in names}
    print("replay server time / bare PK read time: "
          + ", ".join(f"{n} {bare[n] / replay[n]:.2f}x" for n in names))
    for conn in [*conns.values(), *admins.values()]:
        conn.close()


if __name__ == "__main__":
    main()
