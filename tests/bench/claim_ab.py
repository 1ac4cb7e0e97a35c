"""make bench's claim+complete (pgbench) for this tree against another git ref, beside the
limit, on one bench server: the A/B behind docs/tenants.md's hot-path budget.

`tests/bench/.env/bin/python tests/bench/claim_ab.py [--base 04cc193] [--clients 1 8 32]
[--rounds 3]`

One throwaway server with the bench settings (server.py, port 55460): database `actae`
migrated from this tree (with the limit's table, as the claim group makes it) and database
`base` from --base. Per client count, rounds interleave the limit, this tree and the base,
each 2 s warm-up + 4 s measured (pgbench.run, as the claim group); the table shows each
round and the medians.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import psycopg
from psycopg.conninfo import make_conninfo

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pgbench  # noqa: E402
from server import Server  # noqa: E402
from tenant_overhead import _tree_of  # noqa: E402

from actae.migrate import migrate  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--base", default="04cc193")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with Server(55460) as server, tempfile.TemporaryDirectory() as tmp:
        server.psql("create schema bench;"
                    " create table bench.ledger (like actae.executions including all);")
        with psycopg.connect(server.dsn(), autocommit=True) as admin:
            admin.execute("create database base")
        migrate(make_conninfo(server.dsn(), dbname="base"), _tree_of(args.base, Path(tmp)))
        contenders = [("limit", "limit_claim_complete.sql", "actae"),
                      ("this tree", "actae_claim_complete.sql", "actae"),
                      (args.base, "actae_claim_complete.sql", "base")]
        print(f"clients  {'contender':<12} rounds (pairs/s)          median  /limit")
        for c in args.clients:
            rates: dict[str, list[float]] = {}
            for _ in range(args.rounds):
                for name, script, db in contenders:
                    done = pgbench.run(server, name, script, c, 2.0, 4.0, dbname=db)
                    rates.setdefault(name, []).append(done.ops / done.seconds)
            limit = statistics.median(rates["limit"])
            for name, values in rates.items():
                median = statistics.median(values)
                shown = " ".join(f"{v:6.0f}" for v in values)
                print(f"{c:>7}  {name:<12} {shown:<26} {median:6.0f}  {median / limit:.2f}")


if __name__ == "__main__":
    main()
