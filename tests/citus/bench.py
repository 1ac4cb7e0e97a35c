"""What distribution costs and buys on this machine: one PostgreSQL vs a Citus coordinator
with two workers, measured in the same run (tests/citus/cluster.py starts both).

    .venv/bin/python tests/citus/bench.py [--seconds 8] [--rounds 2]

Prints markdown for docs/SCALING.md: throughput of claim+complete pairs, replayed claims
and list_events pages (1 and 8 client threads, rounds interleaved single/cluster), and per
API call the statements the coordinator sends to workers and the shard groups they touch
(from citus.log_remote_commands; tests/citus/routing.py). Ports: ACTAE_CITUS_PORT (+0..2)
for the cluster, ACTAE_BENCH_SINGLE_PORT (default ACTAE_CITUS_PORT + 3) for the single node.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
from cluster import Cluster, Node, as_postgres, say
from routing import shard_groups, trace

from actae import SyncActaeClient

CHANNELS = 256  # channels the load is spread over (hash-spread over the shards)


def claim_complete(client: SyncActaeClient, conn: psycopg.Connection[Any], prefix: str,
                   n: int) -> None:
    channel = f"{prefix}-{n % CHANNELS}"
    claim = client.claim_execution(channel, uuid.uuid4().hex, "pay", {"n": n}, conn=conn)
    assert claim.status == "claimed" and claim.claim_token is not None
    client.complete_execution(claim.execution.id, claim.claim_token, {"ok": n},
                              channel_id=channel, conn=conn)


def measure(dsn: str, threads: int, seconds: float,
            work: Callable[[SyncActaeClient, psycopg.Connection[Any], int], None]) -> float:
    """Operations per second of `work` run by `threads` threads, each on its own connection."""
    done = [0] * threads
    stop = threading.Event()
    client = SyncActaeClient(dsn, max_size=1)

    def loop(slot: int) -> None:
        with psycopg.connect(dsn, autocommit=True) as conn:
            n = slot
            while not stop.is_set():
                work(client, conn, n)
                n += threads
                done[slot] += 1

    pool = [threading.Thread(target=loop, args=(i,)) for i in range(threads)]
    for thread in pool:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in pool:
        thread.join()
    return sum(done) / seconds


def seed_replays(dsn: str, prefix: str, count: int) -> list[tuple[str, str]]:
    """Completed executions to replay, and channels with 100 events to page through."""
    keys: list[tuple[str, str]] = []
    with SyncActaeClient(dsn) as client:
        for n in range(count):
            channel, key = f"{prefix}-{n % CHANNELS}", f"k{n}"
            claim = client.claim_execution(channel, key, "pay", {"n": n})
            assert claim.claim_token is not None
            client.complete_execution(claim.execution.id, claim.claim_token, {"ok": n},
                                      channel_id=channel)
            keys.append((channel, key))
        with psycopg.connect(dsn, autocommit=True) as conn:
            for c in range(16):
                conn.execute(
                    "select count(actae.record_event(%s, 'step', jsonb_build_object('i', i)))"
                    " from generate_series(1, 100) as i", (f"{prefix}-log-{c}",))
    return keys


def workloads(dsn: str) -> dict[str, tuple[int, Callable[..., None]]]:
    prefix = f"bench-{uuid.uuid4().hex[:8]}"
    keys = seed_replays(dsn, prefix, 512)

    def replay(client: SyncActaeClient, conn: psycopg.Connection[Any], n: int) -> None:
        channel, key = keys[n % len(keys)]
        n_param = int(key[1:])
        assert client.claim_execution(channel, key, "pay", {"n": n_param},
                                      conn=conn).status == "replayed"

    def page(client: SyncActaeClient, conn: psycopg.Connection[Any], n: int) -> None:
        assert len(client.list_events(f"{prefix}-log-{n % 16}", 0, 100, conn=conn)) == 100

    def pair(client: SyncActaeClient, conn: psycopg.Connection[Any], n: int) -> None:
        claim_complete(client, conn, prefix, n)

    return {
        "claim+complete pairs/s, 1 thread": (1, pair),
        "claim+complete pairs/s, 8 threads": (8, pair),
        "replayed claims/s, 8 threads": (8, replay),
        "list_events pages of 100/s, 8 threads": (8, page),
    }


def routing_table(dsn: str) -> list[tuple[str, int, int, str]]:
    """(call, statements sent to workers, shard groups touched, note) for the API calls."""
    rows: list[tuple[str, int, int, str]] = []
    channel = f"route-{uuid.uuid4().hex[:8]}"
    with psycopg.connect(dsn, autocommit=True) as conn, SyncActaeClient(dsn) as client:
        groups = shard_groups(conn)

        def call(name: str, sql: str, *params: Any, note: str = "") -> list[Any]:
            found, result = trace(conn, sql, params, groups)
            rows.append((name, found.statements, len(found.groups), note))
            return result

        call("create_channel", "select * from actae.create_channel(%s)", channel)
        call("record_event", "select * from actae.record_event(%s, 's', '{}', 'op')", channel)
        call("record_event (operation_id replay)",
             "select * from actae.record_event(%s, 's', '{}', 'op')", channel)
        call("transition_state",
             "select * from actae.transition_state(%s, 's', '{}', '{}', 0)", channel)
        r = call("claim_execution (new key)",
                 "select * from actae.claim_execution(%s, 'k', 't', '{}')", channel)
        call("heartbeat_execution (with channel_id)",
             "select * from actae.heartbeat_execution(%s, %s, null, %s)", r[0][1], r[0][6],
             channel)
        call("complete_execution (with channel_id)",
             "select * from actae.complete_execution(%s, %s, '1', %s)", r[0][1], r[0][6],
             channel)
        call("claim_execution (replay)",
             "select * from actae.claim_execution(%s, 'k', 't', '{}')", channel)
        r = call("claim_execution (new key, 2)",
                 "select * from actae.claim_execution(%s, 'k2', 't', '{}')", channel)
        call("fail_execution (with channel_id)",
             "select * from actae.fail_execution(%s, 'x', %s, true, %s)", r[0][1], r[0][6],
             channel)
        call("claim_execution (reclaim after a retryable failure)",
             "select * from actae.claim_execution(%s, 'k2', 't', '{}')", channel)
        r = call("claim_execution (new key, 3)",
                 "select * from actae.claim_execution(%s, 'k3', 't', '{}')", channel)
        call("complete_execution (no channel_id)",
             "select * from actae.complete_execution(%s, %s, '1')", r[0][1], r[0][6],
             note="looks the channel up")
        call("list_events", "select * from actae.list_events(%s)", channel)
        call("get_state", "select * from actae.get_state(%s)", channel)
        call("get_channel", "select * from actae.get_channel(%s)", channel)
        call("get_execution (channel_id, key_name)",
             "select * from actae.get_execution(%s, 'k')", channel)
        call("get_execution (execution_id)", "select * from actae.get_execution(%s)",
             r[0][1], note="by id")
        call("watch_channel", "select actae.watch_channel(%s)", channel)
        fork = call("fork_channel", "select * from actae.fork_channel(%s, 1)", channel,
                    note="source + fork")[0][0]
        call("list_events (fork of a plain channel)",
             "select * from actae.list_events(%s)", fork, note="one per lineage segment")
        call("claim_execution (fork, inherited replay)",
             "select * from actae.claim_execution(%s, 'k', 't', '{}')", fork,
             note="own row, then ancestor")
        call("list_executions (channel)",
             "select * from actae.list_executions(%s)", channel)
        call("list_expired_leases", "select * from actae.list_expired_leases()",
             note="every shard")
        call("purge", "select * from actae.purge('1 day')", note="every shard")
        call("list_completed", "select * from actae.list_completed(%s)", channel)
        queue, run_channel = f"{channel}-q", f"{channel}-run"
        call("start_run", "select * from actae.start_run(%s, 'a', '{}', %s)", run_channel,
             queue)
        r = call("claim_run", "select channel_id, claim_token"
                 " from actae.claim_run(%s, 'w', null, 60)", queue,
                 note="unlocked page on every shard, then a lock by channel")
        call("heartbeat_run", "select * from actae.heartbeat_run(%s, %s, null)", r[0][0],
             r[0][1])
        call("complete_run", "select * from actae.complete_run(%s, %s, '1')", r[0][0],
             r[0][1])
        call("claim_run (queue empty)",
             "select * from actae.claim_run(%s, 'w', null, 60)", queue, note="every shard")
        client.close_channel(channel)
    return rows


def print_routing(dsn: str) -> None:
    print("\n| call | statements sent to workers | shard groups | note |")
    print("|---|---:|---:|---|")
    for name, statements, shards, note in routing_table(dsn):
        print(f"| `{name}` | {statements} | {shards} | {note} |")


def start_single(port: int) -> Node:
    base = Path(f"/tmp/actae-bench-single-{port}")
    node = Node("single", port, base, citus=False)
    node.stop()
    shutil.rmtree(base, ignore_errors=True)
    (base / "run").mkdir(parents=True)
    if os.geteuid() == 0:
        for path in (base, base / "run"):
            shutil.chown(path, "postgres", "postgres")
    node.init()
    node.start()
    return node


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--routing-only", action="store_true",
                        help="only the statements-per-call table (starts the cluster only)")
    args = parser.parse_args()
    cluster = Cluster()
    if args.routing_only:
        try:
            cluster.start()
            cluster.setup()
            print_routing(cluster.coordinator.dsn)
        finally:
            cluster.stop()
        return
    single_port = int(os.environ.get("ACTAE_BENCH_SINGLE_PORT",
                                     cluster.coordinator.port + 3))
    single = start_single(single_port)
    try:
        subprocess.run([sys.executable, "-m", "actae", "migrate"], check=True,
                       stdout=subprocess.DEVNULL, env={**os.environ, "ACTAE_DSN": single.dsn})
        cluster.start()
        cluster.setup()
        systems = {"single node": single.dsn, "coordinator + 2 workers": cluster.coordinator.dsn}
        loads = {name: workloads(dsn) for name, dsn in systems.items()}
        figures: dict[tuple[str, str], list[float]] = {}
        for _ in range(args.rounds):
            for label in loads["single node"]:
                for name, dsn in systems.items():
                    threads, work = loads[name][label]
                    rate = measure(dsn, threads, args.seconds, work)
                    figures.setdefault((label, name), []).append(rate)
                    say(f"{label} on {name}: {rate:.0f}")
        print(f"\n| workload ({args.rounds} rounds of {args.seconds:g} s, median) "
              "| single node | coordinator + 2 workers | ratio |")
        print("|---|---:|---:|---:|")
        for label in loads["single node"]:
            one = statistics.median(figures[(label, "single node")])
            many = statistics.median(figures[(label, "coordinator + 2 workers")])
            print(f"| {label} | {one:.0f} | {many:.0f} | {many / one:.2f} |")
        print_routing(cluster.coordinator.dsn)
    finally:
        cluster.stop()
        single.stop()
        as_postgres(["rm", "-rf", str(single.base)])


if __name__ == "__main__":
    main()
