"""The pools a client opens for itself: psycopg_pool's, plus one parked connection.

A driver call checks a connection out and back in around one statement. psycopg_pool's
getconn / putconn cost about 12 µs of client CPU per call between statements, a tenth of
a claim's whole client cost, so the pool a client owns keeps the connection last given
back *parked* beside it and hands it straight out again:

* The parked connection counts as checked out: the pool's own accounting, ``max_size``,
  ``drain()`` and ``connection()`` work as before (``getconn`` / ``putconn`` are the only
  entry points, and both go through the parking).
* A connection is parked only when nobody waits in the pool for one (a caller blocked in
  ``getconn`` gets it through the pool instead), only when it is idle (no transaction,
  not closed), and only while the pool is open. ``close()`` returns it first, and a
  connection given back while ``close()`` runs in another thread is not parked.
* It goes back through the pool at least every ``PARK_SECONDS``, so the pool's checks of
  a returned connection (broken, past ``max_lifetime``) still run.

Its connections lost (a restart, an outage), the pool tries to connect again at most
RECONNECT_MAX_DELAY seconds apart (_Reconnect), so it serves calls within seconds of the
server's return.

Private: a caller's own pool (``ActaeClient(pool=...)``) is never replaced.
"""

from __future__ import annotations

import os
import select
import threading
from time import monotonic
from typing import Any, TypeVar

import psycopg
from psycopg import AsyncConnection, Connection
from psycopg.pq import ConnStatus, TransactionStatus
from psycopg_pool import AsyncConnectionPool, ConnectionPool
from psycopg_pool.base import AttemptWithBackoff

PARK_SECONDS = 5.0
#: the longest a pool of the client's own waits between two tries to connect again
RECONNECT_MAX_DELAY = 2.0


#: set on a pool of the client's own: when (monotonic) it last failed to connect (read by
#: errors.mark_unreached)
CONNECT_FAILED_AT = "_actae_connect_failed_at"


class _Reconnect(AttemptWithBackoff):
    """psycopg_pool's tries to replace a lost connection, 1, 2, 4 ... seconds apart, capped
    at RECONNECT_MAX_DELAY: uncapped, the tries after a 40 s outage came 32 s apart, so a
    pool had no connection for up to half a minute after the server was back, and a
    worker's heartbeats, waiting for one, let its leases lapse (runs taken over, tools run
    twice, by a worker that was alive all along). Each try is one connection attempt (a
    refused one costs nothing); they stop at the pool's reconnect_timeout as before."""

    def __init__(self, pool: object, *, timeout: float) -> None:
        super().__init__(timeout=timeout)
        self.pool = pool

    def update_delay(self, now: float) -> None:
        # Called after each failed try: the pool's last failure is known (errors.mark_unreached
        # tells a pool timeout during an outage from one of a pool kept busy).
        setattr(self.pool, CONNECT_FAILED_AT, now)
        super().update_delay(now)
        self.delay = min(self.delay, RECONNECT_MAX_DELAY)


def _idle(conn: Connection[Any] | AsyncConnection[Any]) -> bool:
    return not conn.closed and conn.pgconn.transaction_status == TransactionStatus.IDLE


_POLL = "_actae_poll"  # a connection's poll object, made once


def _alive(conn: Connection[Any] | AsyncConnection[Any]) -> bool:
    """Whether the server still holds this idle connection. A server that ends one (a
    restart, a failover, pg_terminate_backend) sends why and closes it, so the socket of a
    connection nobody uses turns readable; only then is its input read, which finds the
    end. Otherwise a poll of the socket: about half a microsecond. A connection found ended
    is closed, for the pool to drop; the call that would have failed on it gets another."""
    if conn.closed:
        return False
    poller = getattr(conn, _POLL, None)
    if poller is None:
        poller = select.poll()
        poller.register(conn.pgconn.socket, select.POLLIN)
        setattr(conn, _POLL, poller)
    try:
        # Read while there is input: a notice or a notification is read and gone, the
        # server's goodbye is followed by the end of the stream, which libpq reports
        # (raising). Still readable after a few reads: notifications keep coming in (a
        # connection that LISTENs), and the connection is as alive as its status says.
        for _ in range(4):
            if not poller.poll(0):
                break
            conn.pgconn.consume_input()
        if conn.pgconn.status == ConnStatus.OK:
            return True
    except psycopg.OperationalError:
        pass
    conn.pgconn.finish()  # closed at once, sync or async connection: the pool drops it
    return False


_SINCE = "_actae_out_since"  # when the connection last left the pool itself

#: how many forks lie between this process and the one that imported this module: a pool
#: opened before a fork refuses the child's calls (its connections are the parent's, and
#: psycopg_pool's threads did not come along)
_forks = 0


def _forked() -> None:
    global _forks
    _forks += 1


os.register_at_fork(after_in_child=_forked)


class ForkedPool(RuntimeError):
    """A pool of a client opened before this process was forked: its connections belong to
    the parent, whose replies a child would read. Open a client in each process after the
    fork (a ``multiprocessing`` worker's initializer, a server's post-fork hook)."""


def _forked_off(pool: ParkingPool | AsyncParkingPool) -> bool:
    """Whether this process was forked after the pool was made."""
    return pool._born != _forks  # pyright: ignore[reportPrivateUsage]


def _unforked(pool: ParkingPool | AsyncParkingPool) -> None:
    if _forked_off(pool):
        raise ForkedPool(
            f"this client was made in process {pool._born_pid} before process"  # pyright: ignore[reportPrivateUsage]
            f" {os.getpid()} was forked from it, and its connections are that process's:"
            " make and open a client in each process after the fork")

C = TypeVar("C", Connection[Any], AsyncConnection[Any])


def _left(conn: C) -> C:
    setattr(conn, _SINCE, monotonic())
    return conn


def _fresh(conn: Connection[Any] | AsyncConnection[Any]) -> bool:
    return bool(monotonic() - getattr(conn, _SINCE, 0.0) < PARK_SECONDS)


class ParkingPool(ConnectionPool):
    """ConnectionPool keeping the last connection given back parked for the next getconn."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._born, self._born_pid = _forks, os.getpid()  # before an open=True opens it
        super().__init__(*args, **kwargs)
        self._park_lock = threading.Lock()
        self._parked: Connection[Any] | None = None
        self._entering = 0  # callers inside ConnectionPool.getconn
        self._closing = False  # set under the lock: nothing is parked once close() began

    def getconn(self, timeout: float | None = None) -> Connection[Any]:
        _unforked(self)
        with self._park_lock:
            conn, self._parked = self._parked, None
            if conn is not None and _fresh(conn) and _alive(conn):
                return conn
            self._entering += 1
        try:
            if conn is not None:  # parked too long, or ended: through the pool's checks
                super().putconn(conn)
            # Each connection the server ended (all of them after a restart) is dropped.
            for _ in range(self.max_size):
                conn = super().getconn(timeout)
                if _alive(conn):
                    return _left(conn)
                super().putconn(conn)
            return _left(super().getconn(timeout))
        finally:
            with self._park_lock:
                self._entering -= 1

    def _add_connection(self, attempt: AttemptWithBackoff | None,
                        growing: bool = False) -> None:
        super()._add_connection(
            attempt or _Reconnect(self, timeout=self.reconnect_timeout), growing)

    def putconn(self, conn: Connection[Any]) -> None:
        if _idle(conn) and not self.closed and getattr(conn, "_pool", None) is self:
            with self._park_lock:
                if self._parked is None and self._entering == 0 and not self._closing:
                    self._parked = conn
                    return
        super().putconn(conn)

    def open(self, wait: bool = False, timeout: float = 30.0) -> None:
        _unforked(self)  # psycopg_pool's state made in the parent never opens in a child
        super().open(wait, timeout)

    def close(self, timeout: float = 5.0) -> None:
        if _forked_off(self):
            return  # the connections are the parent's: closing them would end its sessions
        with self._park_lock:
            self._closing = True
            conn, self._parked = self._parked, None
        if conn is not None:
            super().putconn(conn)
        super().close(timeout)


class AsyncParkingPool(AsyncConnectionPool):
    """AsyncConnectionPool keeping the last connection given back parked (one event loop:
    nothing between a check and its update awaits, so no lock is needed)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._born, self._born_pid = _forks, os.getpid()  # before an open=True opens it
        super().__init__(*args, **kwargs)
        self._parked: AsyncConnection[Any] | None = None
        self._entering = 0
        self._closing = False  # nothing is parked once close() began (it awaits)

    async def getconn(self, timeout: float | None = None) -> AsyncConnection[Any]:
        _unforked(self)
        conn, self._parked = self._parked, None
        if conn is not None and _fresh(conn) and _alive(conn):
            return conn
        self._entering += 1
        try:
            if conn is not None:
                await super().putconn(conn)
            for _ in range(self.max_size):  # see ParkingPool.getconn
                conn = await super().getconn(timeout)
                if _alive(conn):
                    return _left(conn)
                await super().putconn(conn)
            return _left(await super().getconn(timeout))
        finally:
            self._entering -= 1

    async def _add_connection(self, attempt: AttemptWithBackoff | None,
                              growing: bool = False) -> None:
        await super()._add_connection(
            attempt or _Reconnect(self, timeout=self.reconnect_timeout), growing)

    async def putconn(self, conn: AsyncConnection[Any]) -> None:
        if (_idle(conn) and not self.closed and getattr(conn, "_pool", None) is self
                and self._parked is None and self._entering == 0 and not self._closing):
            self._parked = conn
            return
        await super().putconn(conn)

    async def open(self, wait: bool = False, timeout: float = 30.0) -> None:
        _unforked(self)  # see ParkingPool.open
        await super().open(wait, timeout)

    async def close(self, timeout: float = 5.0) -> None:
        if _forked_off(self):
            return  # see ParkingPool.close
        self._closing = True
        conn, self._parked = self._parked, None
        if conn is not None:
            await super().putconn(conn)
        await super().close(timeout)
