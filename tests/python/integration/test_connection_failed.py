"""A wrong DSN fails within seconds with ConnectionFailed naming host and port (both clients),
instead of blocking on the pool's 30 s timeout."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator

import pytest
from psycopg.conninfo import make_conninfo

from actae import ActaeClient, ActaeError, ConnectionFailed, SyncActaeClient


@pytest.fixture
def refused_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A loopback port that accepts TCP connections and never answers (a hung server)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield int(sock.getsockname()[1])


def open_sync(dsn: str) -> tuple[ConnectionFailed, float]:
    started = time.monotonic()
    with pytest.raises(ConnectionFailed) as caught:
        SyncActaeClient(dsn).open()
    return caught.value, time.monotonic() - started


def test_refused_port_names_host_and_port(refused_port: int) -> None:
    error, seconds = open_sync(f"host=127.0.0.1 port={refused_port} user=nobody dbname=x")
    assert isinstance(error, ActaeError)
    assert f"host 127.0.0.1 port {refused_port}" in str(error)
    assert "Connection refused" in str(error)
    assert error.detail == {"host": "127.0.0.1", "port": str(refused_port)}
    assert seconds < 5


def test_url_dsn_and_missing_socket() -> None:
    error, _ = open_sync("postgresql://someone@/db?host=/nonexistent-actae-socket&port=6543")
    assert "host /nonexistent-actae-socket port 6543" in str(error)


def test_wrong_database_on_a_real_server(dsn: str) -> None:
    error, seconds = open_sync(make_conninfo(dsn, dbname="actae_no_such_database"))
    assert "actae_no_such_database" in str(error) and "does not exist" in str(error)
    assert seconds < 5


def test_hung_server_is_bounded_by_connect_timeout(silent_port: int) -> None:
    error, seconds = open_sync(f"host=127.0.0.1 port={silent_port} dbname=x connect_timeout=2")
    assert f"port {silent_port}" in str(error)
    assert 1.5 < seconds < 10


def test_async_client_fails_the_same_way(refused_port: int) -> None:
    async def attempt() -> None:
        async with ActaeClient(f"host=127.0.0.1 port={refused_port} dbname=x"):
            pass

    started = time.monotonic()
    with pytest.raises(ConnectionFailed, match=f"host 127.0.0.1 port {refused_port}"):
        asyncio.run(attempt())
    assert time.monotonic() - started < 5


def test_a_good_dsn_still_opens(dsn: str) -> None:
    with SyncActaeClient(dsn) as client:
        assert client.ledger_status().schema_version >= 1
