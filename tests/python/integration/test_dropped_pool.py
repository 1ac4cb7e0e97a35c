"""The connections a client keeps are ended by the server (a restart, a failover,
pg_terminate_backend): the next calls get live ones, none fails for it."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable

import psycopg
from psycopg.conninfo import make_conninfo

from actae import ActaeClient, SyncActaeClient
from tests.python.integration.test_dropped_connection import _terminate


def test_calls_after_the_server_ended_every_pooled_connection_succeed(
        dsn: str, unique: Callable[..., str]) -> None:
    application = unique("pooled")
    with SyncActaeClient(make_conninfo(dsn, application_name=application),
                         max_size=4) as client:
        barrier = threading.Barrier(4)

        def busy() -> None:  # four connections out at once, so the pool holds four
            with client.pool.connection() as conn:
                barrier.wait(10)
                conn.execute("select 1")

        threads = [threading.Thread(target=busy) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        client.ledger_status()  # one of them parked
        assert _terminate(dsn, application) == 4
        for _ in range(6):  # each used to fail once, AdminShutdown
            client.ledger_status()


def test_the_async_client_too(dsn: str, unique: Callable[..., str]) -> None:
    application = unique("pooled")

    async def main() -> None:
        async with ActaeClient(make_conninfo(dsn, application_name=application),
                               max_size=3) as client:
            await asyncio.gather(*(client.ledger_status() for _ in range(6)))
            assert _terminate(dsn, application) >= 1
            for _ in range(5):
                await client.ledger_status()

    asyncio.run(main())


def test_a_pooled_connection_with_notifications_waiting_is_kept(
        dsn: str, unique: Callable[..., str]) -> None:
    """A connection the caller made LISTEN, given back with thousands of notifications
    waiting in its socket, is alive: the check reads them and keeps it (it was closed,
    its LISTEN ended and the notifications lost)."""
    topic = unique("topic").replace("-", "_")
    with SyncActaeClient(dsn, max_size=1) as client:
        with client.pool.connection() as conn:
            conn.execute(f"listen {topic}")
            pid = conn.info.backend_pid
        with psycopg.connect(dsn, autocommit=True) as sender:
            sender.execute(f"select pg_notify('{topic}', repeat('x', 100) || i)"
                           " from generate_series(1, 5000) as i")
        with client.pool.connection() as conn:
            assert conn.info.backend_pid == pid
            conn.execute(f"unlisten {topic}")
