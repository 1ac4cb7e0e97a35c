"""``actae console``'s server: uvicorn, told to end the live views when it is told to stop.

A live view is a response that never ends, and uvicorn, stopping on Ctrl-C or SIGTERM, waits
for every response in flight: with one browser tab left on a run page the console never
stopped. The stop signal now sets the app's ``stopping`` event first, which ends every live
view (the browsers reconnect to the next console); requests still running SHUTDOWN_SECONDS
later are cut.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
from typing import Any

from actae._extras import needs
from actae.console.app import create_app

with needs("console", "actae.console.server"):
    import uvicorn

#: on Ctrl-C or SIGTERM, how long requests in flight may finish before they are cut
SHUTDOWN_SECONDS = 3


class _Server(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, stopping: asyncio.Event) -> None:
        super().__init__(config)
        self.stopping = stopping

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        """Bind; once it answers, say where on stderr (uvicorn's own line is at level
        info, below the default warning)."""
        await super().startup(sockets)
        if self.started:
            host = self.config.host
            shown = f"[{host}]" if ":" in host else host
            print(f"actae console: serving http://{shown}:{self.config.port}/"
                  " (Ctrl-C stops it)", file=sys.stderr, flush=True)

    def handle_exit(self, sig: int, frame: Any) -> None:
        super().handle_exit(sig, frame)
        with contextlib.suppress(RuntimeError):  # no loop running yet: nothing to end
            asyncio.get_running_loop().call_soon_threadsafe(self.stopping.set)


def serve(dsn: str, *, host: str, port: int, log_level: str, **app_options: Any) -> None:
    """Serve create_app(dsn, host=host, **app_options) on host:port until a stop signal."""
    stopping = asyncio.Event()
    app = create_app(dsn, host=host, stopping=stopping, **app_options)
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level,
                            timeout_graceful_shutdown=SHUTDOWN_SECONDS)
    _Server(config, stopping).run()
