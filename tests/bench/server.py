"""A throwaway PostgreSQL server for one benchmark group, identical settings for every contender.

Each group (claim+complete, transitions, forks, scale) gets a fresh cluster under /tmp
(``actae.pg.Server``) so no run inherits another's bloat, cache or WAL. Running as root, the
cluster belongs to the `postgres` user. The settings are printed in docs/BENCHMARKS.md.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg

from actae import pg

PG_BIN = pg.find_bin()
REPO = Path(__file__).resolve().parents[2]

# Durable commits (fsync + synchronous_commit on) for everyone: durability is the product.
SETTINGS: dict[str, str] = {
    "max_connections": "200",
    "shared_buffers": "1GB",
    "work_mem": "16MB",
    "maintenance_work_mem": "512MB",
    "fsync": "on",
    "synchronous_commit": "on",
    "wal_level": "replica",
    "max_wal_size": "8GB",
    "checkpoint_timeout": "30min",
    "autovacuum": "on",
    "jit": "off",
    "listen_addresses": "",
}


class Server:
    """initdb + start on `port`; `stop()` removes the cluster."""

    def __init__(self, port: int, extra: dict[str, str] | None = None) -> None:
        self.port = port
        self.settings = {**SETTINGS, **(extra or {})}
        base = Path(tempfile.mkdtemp(prefix=f"actae-bench-{port}-", dir="/tmp"))
        self.pg = pg.Server(base, port=port, bin_dir=PG_BIN, settings=self.settings,
                            listen="")

    def dsn(self, dbname: str = "actae") -> str:
        return self.pg.dsn(dbname)

    def url(self, dbname: str) -> str:
        """SQLAlchemy-style URL (for DBOS) reaching the same Unix socket."""
        return self.pg.url(dbname)

    def start(self) -> Server:
        self.pg.start()
        self.pg.create_database("actae")
        self.migrate()
        return self

    def migrate(self) -> None:
        """Apply Actae's migrations and functions with the project's own migrator."""
        subprocess.run(
            [sys.executable, "-m", "actae", "migrate"], check=True, stdout=subprocess.DEVNULL,
            env={**os.environ, "ACTAE_DSN": self.dsn()}, cwd=REPO,
        )

    def psql(self, sql: str, dbname: str = "actae") -> None:
        subprocess.run(
            [str(PG_BIN / "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", self.dsn(dbname),
             "-c", sql],
            check=True, stdout=subprocess.DEVNULL,
        )

    def checkpoint(self) -> None:
        """Flush dirty pages so the next contender does not pay for the previous one's writes."""
        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute("checkpoint")
        time.sleep(0.5)

    def stop(self) -> None:
        self.pg.remove()

    def __enter__(self) -> Server:
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def machine() -> dict[str, str]:
    """What the numbers were measured on."""
    version = subprocess.run(
        [str(PG_BIN / "postgres"), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"postgres": version, "cpus": str(os.cpu_count()), "cpu": model}
