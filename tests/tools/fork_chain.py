"""Measure a chain of forks: each fork is a fork of the previous one at its head, with one
event of its own (the F9 finding of issue 14: lineage copied per fork grows quadratically).

    python -m tests.tools.fork_chain [--depth 3000] [--purge]

Prints how many forks were made before Actae refused one (AC400 at the fork_depth limit),
the time to build the chain, the size of actae.channels (table + TOAST + indexes) and, with
--purge, the time the operator's purge takes to delete the whole chain once it is closed.
Runs against ACTAE_DSN; everything it creates is deleted by the purge or left under a
unique prefix (fork-chain-<hex>-).
"""

from __future__ import annotations

import argparse
import os
import time
import uuid

import psycopg


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=3000)
    parser.add_argument("--purge", action="store_true")
    args = parser.parse_args()
    prefix = f"fork-chain-{uuid.uuid4().hex[:8]}-"
    with psycopg.connect(os.environ["ACTAE_DSN"], autocommit=True) as conn:
        before = conn.execute(
            "select pg_total_relation_size('actae.channels')").fetchone()[0]
        ids = [prefix + "0"]
        conn.execute("select actae.record_event(%s, 'step', '{}')", (ids[0],))
        refused = ""
        start = time.perf_counter()
        for depth in range(1, args.depth + 1):
            new = f"{prefix}{depth}"
            try:
                conn.execute("select actae.fork_channel(%s, 1 + %s, %s)",
                             (ids[-1], depth - 1, new))
            except psycopg.Error as exc:
                refused = f"{exc.sqlstate} {exc.diag.message_primary}"
                break
            conn.execute("select actae.record_event(%s, 'step', '{}')", (new,))
            ids.append(new)
        built = time.perf_counter() - start
        after = conn.execute(
            "select pg_total_relation_size('actae.channels')").fetchone()[0]
        print(f"forks made: {len(ids) - 1} of {args.depth} requested"
              + (f" (refused: {refused})" if refused else ""))
        print(f"build: {built:.1f} s ({1000 * built / max(len(ids) - 1, 1):.2f} ms per fork"
              " + its event)")
        print(f"actae.channels grew by {(after - before) / 1e6:.1f} MB")
        tip = conn.execute("select actae.get_state(%s)", (ids[-1],)).fetchone()
        start = time.perf_counter()
        n = conn.execute("select count(*) from actae.list_events(%s, 0, 100000)",
                         (ids[-1],)).fetchone()[0]
        print(f"list_events at the tip: {n} events in "
              f"{1000 * (time.perf_counter() - start):.1f} ms (state {tip[0]})")
        if not args.purge:
            return
        for channel in reversed(ids):  # tip first: one purge pass frees its parent
            conn.execute("select actae.close_channel(%s)", (channel,))
        time.sleep(0.01)
        start = time.perf_counter()
        calls = deleted = 0
        while True:
            calls += 1
            row = conn.execute("select channels, more from actae.purge('0 seconds', 100000)"
                               ).fetchone()
            deleted += row[0]
            if row[0] == 0 and not row[1]:
                break
        print(f"purge: {deleted} channels in {time.perf_counter() - start:.1f} s "
              f"({calls} calls)")


if __name__ == "__main__":
    main()
