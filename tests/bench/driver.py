"""What the Python driver costs: the same claim + complete through bare psycopg and through
SyncActaeClient / ActaeClient, and run_tool against the same steps written by hand.

`tests/bench/.env/bin/python tests/bench/driver.py [--ops 1200] [--rounds 9]` (own server,
port 55438), or the `driver` group of run.py.

The server runs with synchronous_commit off (the client's cost is the question; a WAL
flush per commit swings 10x between rounds on a shared disk). One client (c = 1), one
process: every contender runs `ops` operations per round on the
same server, contenders interleaved round after round, each in its own channel; the table
shows the median round's throughput (operations per wall-clock second) and the client CPU
per operation (time.process_time: the driver's own work, the server's excluded).

Baselines ("bare psycopg"): one autocommit connection, statements prepared (prepare=True),
tuple rows, the same calls the driver sends (complete_execution with the channel_id).
"3 columns" reads what the caller needs (outcome, id, token); "whole row" reads the same row
the driver reads (select *), so driver / whole row is the driver's own cost (pool checkout,
dict rows, typed models, named-argument SQL) and driver / 3 columns adds the cost of
returning the whole execution. ActaeClient is compared with the same statements through
psycopg's AsyncConnection (bare async psycopg), its own floor: asyncio costs psycopg itself
a share of the sync rate, and that share is shown too.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import psycopg  # noqa: E402
from psycopg.types.json import Jsonb  # noqa: E402

from actae import ActaeClient, SyncActaeClient, ToolContext  # noqa: E402

PORT = 55438
PARAMS = {"q": "actae"}
RESULT = {"ok": True}
CLAIM3 = ("select outcome, execution_id, claim_token"
          " from actae.claim_execution(%s, %s, %s, %s)")
COMPLETE3 = "select status from actae.complete_execution(%s, %s, %s, %s)"
CLAIM_ALL = "select * from actae.claim_execution(%s, %s, %s, %s)"
COMPLETE_ALL = "select * from actae.complete_execution(%s, %s, %s, %s)"

RAW3 = "bare psycopg, prepared (3 columns)"
RAW_ALL = "bare psycopg, prepared (whole row)"
ARAW_ALL = "bare async psycopg, prepared (whole row)"
SYNC = "SyncActaeClient"
ASYNC = "ActaeClient (asyncio)"
RAW_TOOL = "bare psycopg: claim, tool, complete (whole row)"
ARAW_TOOL = "bare async psycopg: claim, tool, complete (whole row)"
SYNC_TOOL = "SyncActaeClient.run_tool"
ASYNC_TOOL = "ActaeClient.run_tool"


def tool(ctx: ToolContext) -> dict[str, Any]:
    return RESULT


async def atool(ctx: ToolContext) -> dict[str, Any]:
    return RESULT


class Contenders:
    """Each contender: a function running n operations in a fresh channel."""

    def __init__(self, dsn: str) -> None:
        self.conn = psycopg.connect(dsn, autocommit=True)
        self.sync = SyncActaeClient(dsn, max_size=1)
        self.sync.open()
        self.loop = asyncio.new_event_loop()
        self.aclient = ActaeClient(dsn, max_size=1)
        self.loop.run_until_complete(self.aclient.open())
        self.aconn = self.loop.run_until_complete(
            psycopg.AsyncConnection.connect(dsn, autocommit=True))

    def close(self) -> None:
        self.loop.run_until_complete(self.aconn.close())
        self.loop.run_until_complete(self.aclient.close())
        self.loop.close()
        self.sync.close()
        self.conn.close()

    def raw(self, n: int, channel: str, claim_sql: Any, complete_sql: Any, token_at: int,
            call_tool: bool = False) -> None:
        conn, params = self.conn, Jsonb(PARAMS)
        for i in range(n):
            row = conn.execute(claim_sql, (channel, f"k{i}", "search", params),
                               prepare=True).fetchone()
            assert row is not None and row[0] == "claimed", row
            result = tool(None) if call_tool else RESULT  # type: ignore[arg-type]
            conn.execute(complete_sql, (row[1], row[token_at], Jsonb(result), channel),
                         prepare=True).fetchone()

    def araw(self, n: int, channel: str, call_tool: bool = False) -> None:
        conn, params = self.aconn, Jsonb(PARAMS)

        async def go() -> None:
            for i in range(n):
                cur = await conn.execute(CLAIM_ALL, (channel, f"k{i}", "search", params),
                                         prepare=True)
                row = await cur.fetchone()
                assert row is not None and row[0] == "claimed", row
                result = await atool(None) if call_tool else RESULT  # type: ignore[arg-type]
                cur = await conn.execute(COMPLETE_ALL, (row[1], row[6], Jsonb(result), channel),
                                         prepare=True)
                await cur.fetchone()

        self.loop.run_until_complete(go())

    def driver(self, n: int, channel: str) -> None:
        client = self.sync
        for i in range(n):
            claim = client.claim_execution(channel, f"k{i}", "search", PARAMS)
            assert claim.status == "claimed", claim.status
            client.complete_execution(claim.execution.id, claim.claim_token, RESULT,
                                      channel_id=channel)

    def adriver(self, n: int, channel: str) -> None:
        client = self.aclient

        async def go() -> None:
            for i in range(n):
                claim = await client.claim_execution(channel, f"k{i}", "search", PARAMS)
                assert claim.status == "claimed", claim.status
                await client.complete_execution(claim.execution.id, claim.claim_token, RESULT,
                                                channel_id=channel)

        self.loop.run_until_complete(go())

    def run_tool(self, n: int, channel: str) -> None:
        for i in range(n):
            out = self.sync.run_tool(tool, channel_id=channel, key_name=f"k{i}",
                                     tool_name="search", params=PARAMS)
            assert out == RESULT, out

    def arun_tool(self, n: int, channel: str) -> None:
        client = self.aclient

        async def go() -> None:
            for i in range(n):
                out = await client.run_tool(atool, channel_id=channel, key_name=f"k{i}",
                                            tool_name="search", params=PARAMS)
                assert out == RESULT, out

        self.loop.run_until_complete(go())

    def table(self) -> dict[str, Callable[[int, str], None]]:
        return {
            RAW3: lambda n, ch: self.raw(n, ch, CLAIM3, COMPLETE3, 2),
            RAW_ALL: lambda n, ch: self.raw(n, ch, CLAIM_ALL, COMPLETE_ALL, 6),
            SYNC: self.driver,
            ARAW_ALL: lambda n, ch: self.araw(n, ch),
            ASYNC: self.adriver,
            RAW_TOOL: lambda n, ch: self.raw(n, ch, CLAIM_ALL, COMPLETE_ALL, 6, call_tool=True),
            SYNC_TOOL: self.run_tool,
            ARAW_TOOL: lambda n, ch: self.araw(n, ch, call_tool=True),
            ASYNC_TOOL: self.arun_tool,
        }


def measure(dsn: str, ops: int, rounds: int, log: Callable[[str], None] = print
            ) -> dict[str, Any]:
    """{contender: {throughput, cpu_us, rounds: [...]}} (median round by throughput)."""
    contenders = Contenders(dsn)
    tag = uuid.uuid4().hex[:8]
    samples: dict[str, list[tuple[float, float]]] = {}
    try:
        table = contenders.table()
        for k, run in enumerate(table.values()):  # warm-up: prepared statements, imports
            run(20, f"warm-{tag}-{k}")
        for r in range(rounds):
            for k, (name, run) in enumerate(table.items()):
                channel = f"drv-{tag}-{r}-{k}"
                c0, w0 = time.process_time(), time.perf_counter()
                run(ops, channel)
                wall, cpu = time.perf_counter() - w0, time.process_time() - c0
                samples.setdefault(name, []).append((ops / wall, cpu / ops * 1e6))
            log(f"  driver round {r + 1}/{rounds}: " + ", ".join(
                f"{name} {samples[name][-1][0]:.0f}/s" for name in table))
    finally:
        contenders.close()
    out: dict[str, Any] = {}
    for name, values in samples.items():
        ordered = sorted(values)
        median = ordered[len(ordered) // 2]
        out[name] = {"throughput": round(median[0], 1),
                     "cpu_us": round(statistics.median(v[1] for v in values), 1),
                     "rounds": [round(v[0], 1) for v in values]}
    return out


RATIOS = [
    ("SyncActaeClient / bare psycopg (whole row)", SYNC, RAW_ALL, 0.9),
    ("ActaeClient / bare async psycopg (whole row)", ASYNC, ARAW_ALL, 0.9),
    ("SyncActaeClient.run_tool / bare psycopg claim, tool, complete (whole row)", SYNC_TOOL,
     RAW_TOOL, 0.85),
    ("ActaeClient.run_tool / bare async psycopg claim, tool, complete (whole row)", ASYNC_TOOL,
     ARAW_TOOL, 0.85),
]
# Shown beside the targets, not targets: what asyncio costs psycopg itself, the async
# driver against the sync baseline, and the sync driver and its run_tool (which read the
# whole row, as the "same two calls" do; so do the run_tool baselines above)
# against a caller that selects only 3 of its columns.
CONTEXT = [
    ("SyncActaeClient / bare psycopg (3 columns)", SYNC, RAW3),
    ("SyncActaeClient.run_tool / bare psycopg (3 columns)", SYNC_TOOL, RAW3),
    ("bare async psycopg / bare psycopg (whole row)", ARAW_ALL, RAW_ALL),
    ("ActaeClient / bare psycopg (whole row)", ASYNC, RAW_ALL),
    ("ActaeClient.run_tool / bare psycopg claim, tool, complete (whole row)", ASYNC_TOOL,
     RAW_TOOL),
]


def render(out: dict[str, Any]) -> list[str]:
    lines = ["| contender (c = 1) | ops/s (median round) | client CPU µs/op | rounds |",
             "|---|---:|---:|---|"]
    for name, r in out.items():
        lines.append(f"| {name} | {r['throughput']:,.0f} | {r['cpu_us']:,.0f} |"
                     f" {', '.join(f'{x:.0f}' for x in r['rounds'])} |")
    lines += ["", "| ratio (throughput) | measured | target |", "|---|---:|---:|"]
    for label, a, b, target in RATIOS:
        if a in out and b in out:
            lines.append(f"| {label} | {out[a]['throughput'] / out[b]['throughput']:.2f}× |"
                         f" ≥ {target}× |")
    for label, a, b in CONTEXT:
        if a in out and b in out:
            lines.append(f"| {label} | {out[a]['throughput'] / out[b]['throughput']:.2f}× |"
                         " (context) |")
    return lines


def main() -> None:
    from server import Server

    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", type=int, default=1200)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--dsn", default=None, help="an existing migrated database")
    ns = parser.parse_args()
    if ns.dsn:
        out = measure(ns.dsn, ns.ops, ns.rounds)
    else:
        with Server(PORT, extra={"synchronous_commit": "off"}) as server:
            out = measure(server.dsn(), ns.ops, ns.rounds)
    print("\n".join(render(out)))


if __name__ == "__main__":
    main()
