"""pgbench runs: the C client that shows what the server itself can do with a given script.

A warm-up run (discarded) precedes the measured run; per-transaction latencies come from
pgbench's own log (-l), so p50/p99 are computed exactly as for the Python contenders.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

from load import Result
from server import PG_BIN, Server

SCRIPTS = Path(__file__).resolve().parent / "scripts"


def run(
    server: Server, name: str, script: str, concurrency: int, warmup: float, duration: float,
    dbname: str = "actae", defines: dict[str, str] | None = None,
) -> Result:
    threads = min(concurrency, 2)
    base = [
        str(PG_BIN / "pgbench"), "-n", "-M", "prepared", "-f", str(SCRIPTS / script),
        "-c", str(concurrency), "-j", str(threads), "-d", server.dsn(dbname),
        *(f"-D{k}={v}" for k, v in (defines or {}).items()),
    ]
    seconds = max(1, round(duration))  # pgbench -T counts whole seconds
    if warmup > 0:
        subprocess.run([*base, "-T", str(max(1, round(warmup)))], check=True,
                       capture_output=True, text=True)
    with tempfile.TemporaryDirectory() as tmp:
        prefix = Path(tmp) / "log"
        done = subprocess.run(
            [*base, "-T", str(seconds), "-l", f"--log-prefix={prefix}"],
            check=True, capture_output=True, text=True,
        )
        if re.search(r"number of failed transactions: [1-9]", done.stdout):
            raise RuntimeError(f"{name}: pgbench reported failures\n{done.stdout}")
        latencies: list[float] = []
        for log in Path(tmp).glob("log*"):
            for line in log.read_text().splitlines():
                fields = line.split()
                if len(fields) >= 3:
                    latencies.append(int(fields[2]) / 1000.0)
    ops = int(re.search(r"number of transactions actually processed: (\d+)",
                        done.stdout).group(1))  # type: ignore[union-attr]
    return Result(name, concurrency, ops, float(seconds), latencies)


def transactions(server: Server, script: str, count: int, dbname: str = "actae") -> None:
    """Exactly `count` runs of a script by one client (for per-transaction counters)."""
    subprocess.run(
        [str(PG_BIN / "pgbench"), "-n", "-M", "prepared", "-f", str(SCRIPTS / script),
         "-c", "1", "-t", str(count), "-d", server.dsn(dbname)],
        check=True, capture_output=True, text=True,
    )
