"""A throwaway PostgreSQL server for one benchmark group, identical settings for every contender.

Each group (claim+complete, transitions, forks, scale) gets a fresh cluster under /tmp so no
run inherits another's bloat, cache or WAL. Running as root, the cluster belongs to the
`postgres` user (initdb refuses root). The settings are printed in docs/BENCHMARKS.md.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg

PG_BIN = Path(os.environ.get("ACTAE_PG_BIN", "/usr/lib/postgresql/15/bin"))
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
    "listen_addresses": "''",
}


def _as_postgres() -> list[str]:
    return ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []


class Server:
    """initdb + start on `port`; `stop()` removes the cluster."""

    def __init__(self, port: int, extra: dict[str, str] | None = None) -> None:
        self.port = port
        self.settings = {**SETTINGS, **(extra or {})}
        self.base = Path(tempfile.mkdtemp(prefix=f"actae-bench-{port}-"))
        self.data = self.base / "data"
        if os.geteuid() == 0:
            shutil.chown(self.base, "postgres")
        self.host = str(self.base)

    def dsn(self, dbname: str = "actae") -> str:
        return f"host={self.host} port={self.port} user=postgres dbname={dbname}"

    def url(self, dbname: str) -> str:
        """SQLAlchemy-style URL (for DBOS) reaching the same Unix socket."""
        return f"postgresql://postgres@/{dbname}?host={self.host}&port={self.port}"

    def start(self) -> Server:
        subprocess.run(
            [*_as_postgres(), str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust",
             "-U", "postgres", "--no-sync"],
            check=True, stdout=subprocess.DEVNULL,
        )
        options = " ".join(f"-c {k}={v}" for k, v in self.settings.items())
        subprocess.run(
            [*_as_postgres(), str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-w",
             "-l", str(self.base / "log"), "-o", f"-p {self.port} -k {self.base} {options}",
             "start"],
            check=True, stdout=subprocess.DEVNULL,
        )
        with psycopg.connect(self.dsn("postgres"), autocommit=True) as conn:
            conn.execute("create database actae")
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
        subprocess.run(
            [*_as_postgres(), str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "fast",
             "-w", "stop"],
            check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        shutil.rmtree(self.base, ignore_errors=True)

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
