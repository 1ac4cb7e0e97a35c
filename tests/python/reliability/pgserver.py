"""A throwaway PostgreSQL server that a test may crash (``actae.pg.Server`` in a temporary
folder, unix socket only), migrated, stopped with ``crash()`` on demand.

Only servers started here are ever stopped here. $ACTAE_PG_BIN picks the binaries.
"""

from __future__ import annotations

import random
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from actae.migrate import migrate
from actae.pg import Server, free_port

from .crashes import Figures


class ThrowawayServer:
    def __init__(self) -> None:
        base = Path(tempfile.mkdtemp(prefix="actae-rel-", dir="/tmp"))
        self.server = Server(base, port=free_port(), listen="",
                             settings={"max_connections": "100"})
        self.dsn = ""

    def setup(self) -> ThrowawayServer:
        self.server.start()
        self.dsn = self.server.create_database()
        migrate(self.dsn)
        return self

    def start(self) -> None:
        self.server.start()

    def crash(self) -> None:
        """Stop like a power cut: no checkpoint, no goodbye to clients (crash recovery on the
        next start)."""
        self.server.crash()

    def teardown(self) -> None:
        self.server.remove()

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
