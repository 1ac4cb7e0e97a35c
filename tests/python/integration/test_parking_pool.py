"""The pool a client opens for itself parks the connection last given back (actae._pool):
the next call takes it without psycopg_pool's getconn / putconn, and nothing a pool
promises changes: a caller waiting in the pool is served, a connection in a transaction or
broken is never handed out again, close() closes it, and it goes back through the pool's
own checks every PARK_SECONDS."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
import psycopg_pool
import pytest

from actae import ActaeClient, SyncActaeClient, _pool
from tests.python.integration.test_dropped_connection import _running

PARAMS = {"q": 1}


def _requests(pool: _pool.ParkingPool | _pool.AsyncParkingPool) -> int:
    return pool.get_stats().get("requests_num", 0)


def _pair(client: SyncActaeClient, channel: str, key: str) -> None:
    claim = client.claim_execution(channel, key, "t", PARAMS)
    client.complete_execution(claim.execution.id, claim.claim_token, {"k": key},
                              channel_id=channel)


def test_sequential_calls_reuse_the_parked_connection(
        dsn: str, unique: Callable[..., str], monkeypatch: pytest.MonkeyPatch) -> None:
    channel = unique("park")
    with SyncActaeClient(dsn, max_size=2) as client:
        assert isinstance(client.pool, _pool.ParkingPool)
        _pair(client, channel, "warm")
        before = _requests(client.pool)
        for i in range(10):
            _pair(client, channel, f"k{i}")
        assert _requests(client.pool) - before <= 1  # 20 calls, the pool asked at most once
        # Past PARK_SECONDS every call goes back through the pool itself.
        monkeypatch.setattr(_pool, "PARK_SECONDS", 0.0)
        before = _requests(client.pool)
        for i in range(5):
            _pair(client, channel, f"late{i}")
        assert _requests(client.pool) - before == 10
        assert client.get_execution(channel_id=channel, key_name="late4").status == "completed"


def test_threads_on_a_pool_of_one_never_wait_on_a_parked_connection(
        dsn: str, unique: Callable[..., str]) -> None:
    channel = unique("park-threads")
    client = SyncActaeClient(dsn, max_size=1)
    client.pool.timeout = 10.0  # a connection parked while a caller waits would time out
    errors: list[BaseException] = []

    def work(t: int) -> None:
        try:
            for i in range(40):
                _pair(client, channel, f"t{t}-{i}")
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    with client:
        threads = [threading.Thread(target=work, args=(t,)) for t in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert errors == []
        assert not any(thread.is_alive() for thread in threads)
        done = client.list_executions(channel, status="completed", max_rows=1000)
        assert len(done) == 240
        # The pool's own connection() (console, worker) is served while the client idles.
        with client.pool.connection(timeout=2) as conn:
            assert conn.execute("select 1").fetchone() == (1,)


def test_a_connection_left_in_a_transaction_is_not_handed_out_again(dsn: str) -> None:
    with SyncActaeClient(dsn, max_size=1) as client:
        conn = client.pool.getconn()
        conn.execute("begin")
        conn.execute("select 1")
        assert conn.pgconn.transaction_status == psycopg.pq.TransactionStatus.INTRANS
        client.pool.putconn(conn)  # the pool rolls it back; parking it would hand it out as is
        again = client.pool.getconn()
        try:
            assert again.pgconn.transaction_status == psycopg.pq.TransactionStatus.IDLE
        finally:
            client.pool.putconn(again)


def test_a_parked_connection_the_server_ended_is_replaced_before_the_next_call(
        dsn: str, conn: psycopg.Connection, unique: Callable[..., str]) -> None:
    """The server ends the parked connection (a restart, pg_terminate_backend): the next
    call gets a fresh one from the pool (it failed once, OperationalError)."""
    channel = unique("park-broken")
    with SyncActaeClient(dsn, max_size=1) as client:
        _pair(client, channel, "a")
        parked = client.pool.getconn()
        backend = parked.info.backend_pid
        client.pool.putconn(parked)
        conn.execute("select pg_terminate_backend(%s)", (backend,))
        deadline = time.monotonic() + 10
        while _running(backend):  # gone, as after a restart: its socket is closed
            assert time.monotonic() < deadline
            time.sleep(0.01)
        _pair(client, channel, "b")
        replacement = client.pool.getconn()
        try:
            assert replacement.info.backend_pid != backend
        finally:
            client.pool.putconn(replacement)


def test_close_closes_the_parked_connection(dsn: str, unique: Callable[..., str]) -> None:
    client = SyncActaeClient(dsn, max_size=1)
    with client:
        _pair(client, unique("park-close"), "a")
        parked = client.pool.getconn()
        client.pool.putconn(parked)
    assert parked.closed
    assert client.pool.closed


class _LockWithHook:
    """The pool's park lock, running ``hook`` once just before the next acquire."""

    def __init__(self, inner: Any, hook: Callable[[], None]) -> None:
        self.inner, self.hook = inner, hook

    def __enter__(self) -> Any:
        hook, self.hook = self.hook, None
        if hook is not None:
            hook()
        return self.inner.__enter__()

    def __exit__(self, *exc: object) -> Any:
        return self.inner.__exit__(*exc)


def test_a_connection_given_back_while_the_pool_closes_is_closed(dsn: str) -> None:
    # putconn decided to park (pool open), then close() ran in another thread before
    # putconn took the park lock: the connection must not be parked in the closed pool,
    # where nothing would ever close it.
    pool = _pool.ParkingPool(dsn, min_size=1, max_size=1, kwargs={"autocommit": True},
                             open=True)
    pool.wait()
    conn = pool.getconn()

    def close_now() -> None:
        closer = threading.Thread(target=pool.close)
        closer.start()
        closer.join(10)

    pool._park_lock = _LockWithHook(pool._park_lock, close_now)  # type: ignore[assignment]
    pool.putconn(conn)
    assert pool.closed
    assert pool._parked is None
    assert conn.closed


def test_the_async_pool_parks_and_serves_concurrent_callers(
        dsn: str, unique: Callable[..., str]) -> None:
    channel = unique("park-async")

    async def pair(client: ActaeClient, key: str) -> None:
        claim = await client.claim_execution(channel, key, "t", PARAMS)
        await client.complete_execution(claim.execution.id, claim.claim_token, {"k": key},
                                        channel_id=channel)

    async def main() -> psycopg.AsyncConnection[Any]:
        client = ActaeClient(dsn, max_size=1)
        client.pool.timeout = 10.0
        async with client:
            assert isinstance(client.pool, _pool.AsyncParkingPool)
            await pair(client, "warm")
            before = _requests(client.pool)
            for i in range(10):
                await pair(client, f"s{i}")
            assert _requests(client.pool) - before <= 1
            await asyncio.gather(*(pair(client, f"c{i}") for i in range(30)))
            done = await client.list_executions(channel, status="completed", max_rows=100)
            assert len(done) == 41
            parked = await client.pool.getconn()
            await client.pool.putconn(parked)
        return parked

    parked = asyncio.run(main())
    assert parked.closed


def test_min_size_connections_are_open_once_the_client_is(dsn: str) -> None:
    def backends(conn: psycopg.Connection[Any]) -> int:
        row = conn.execute("select count(*) from pg_stat_activity where application_name"
                           " = 'actae-min-size'").fetchone()
        assert row is not None
        return int(row[0])

    tagged = f"{dsn} application_name=actae-min-size"
    with psycopg.connect(dsn, autocommit=True) as watch:
        with SyncActaeClient(tagged, max_size=5, min_size=3):
            assert backends(watch) == 3

        async def main() -> int:
            async with ActaeClient(tagged, max_size=5, min_size=4):
                return backends(watch)

        assert asyncio.run(main()) == 4
        with pytest.raises(ValueError):
            SyncActaeClient(tagged, max_size=2, min_size=3)


def test_a_connection_given_back_while_the_async_pool_closes_is_closed(
        dsn: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # close() gives the parked connection back to the pool (an await, made to yield here as
    # a reset of the connection would); a connection given back by another task meanwhile
    # must not be parked in the pool being closed.
    give_back = psycopg_pool.AsyncConnectionPool.putconn

    async def yielding_putconn(self: Any, conn: Any) -> None:
        await asyncio.sleep(0)
        await give_back(self, conn)

    monkeypatch.setattr(psycopg_pool.AsyncConnectionPool, "putconn", yielding_putconn)

    async def scenario() -> tuple[Any, ...]:
        pool = _pool.AsyncParkingPool(dsn, min_size=2, max_size=2,
                                      kwargs={"autocommit": True}, open=False)
        await pool.open(wait=True)
        first, second = await pool.getconn(), await pool.getconn()
        await pool.putconn(first)  # parked
        await asyncio.gather(pool.close(), pool.putconn(second))
        return pool.closed, pool._parked, first.closed, second.closed

    closed, parked, first_closed, second_closed = asyncio.run(scenario())
    assert closed and parked is None
    assert first_closed and second_closed
