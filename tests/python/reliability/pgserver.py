"""A throwaway PostgreSQL server that a test may crash: initdb into a temporary folder,
start on a free port, migrate, and stop with ``pg_ctl stop -m immediate`` on demand.

Only servers started here are ever stopped here. As root, the server runs as ``postgres``.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from actae.migrate import migrate

from .crashes import Figures

PG_BIN = Path(os.environ.get("ACTAE_PG_BIN", "/usr/lib/postgresql/15/bin"))


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class ThrowawayServer:
    def __init__(self) -> None:
        self.base = Path(tempfile.mkdtemp(prefix="actae-rel-", dir="/tmp"))
        self.data = self.base / "data"
        self.port = _free_port()
        self.dsn = f"host={self.base} port={self.port} user=postgres dbname=actae"
        self.as_root = os.geteuid() == 0

    def _pg(self, *args: str) -> None:
        command = [str(PG_BIN / args[0]), *args[1:]]
        if self.as_root:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, cwd="/", stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)

    def setup(self) -> ThrowawayServer:
        if self.as_root:
            shutil.chown(self.base, "postgres", "postgres")
        self._pg("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres",
                 "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync")
        self.start()
        self._pg("createdb", "-h", str(self.base), "-p", str(self.port), "-U", "postgres",
                 "actae")
        migrate(self.dsn)
        return self

    def start(self) -> None:
        options = (f"-p {self.port} -k {self.base} -c listen_addresses='' "
                   "-c max_connections=100")
        self._pg("pg_ctl", "-D", str(self.data), "-l", str(self.base / "log"), "-o", options,
                 "-w", "-t", "60", "start")

    def crash(self) -> None:
        """Stop like a power cut: no checkpoint, no goodbye to clients (crash recovery on the
        next start)."""
        self._pg("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def teardown(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):  # not running
            self._pg("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        shutil.rmtree(self.base, ignore_errors=True)

    def __enter__(self) -> ThrowawayServer:
        try:
            return self.setup()
        except BaseException:
            self.teardown()
            raise

    def __exit__(self, *exc_info: object) -> None:
        self.teardown()


def restarts(server: ThrowawayServer, every: tuple[float, float], down: float, limit: int,
             seed: int | None = None) -> Callable[[threading.Event, Figures], None]:
    """A fault loop for crashes.run_scenario: every ``every`` seconds (uniformly drawn),
    crash the server, keep it down for ``down`` seconds and start it again, at most
    ``limit`` times, until the run ends."""
    rng = random.Random(seed)

    def fault(stop: threading.Event, figures: Figures) -> None:
        while figures.db_restarts < limit and not stop.wait(rng.uniform(*every)):
            server.crash()
            time.sleep(down)
            server.start()
            figures.db_restarts += 1

    return fault
