"""The pools a client opens for itself talk UTF-8 whatever the session's client encoding
would be (PGCLIENTENCODING here; a LATIN1 database or a role's setting alike): JSON goes out
as UTF-8 bytes, which a WIN1252 session stored as other characters, so a fork's block policy
on a tool named in it blocked nothing."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from actae import ActaeClient, ForkToolBlocked, SyncActaeClient, Worker

PARAMS = {"who": "Jürgen", "amount": "5 €"}


def stored(conn: psycopg.Connection, channel: str) -> object:
    return conn.execute("select params from actae.executions where channel_id = %s",
                        (channel,)).fetchone()


def test_a_sync_client_stores_text_as_sent_in_any_client_encoding(
    dsn: str, conn: psycopg.Connection, unique: Callable[..., str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PGCLIENTENCODING", "WIN1252")
    channel = unique("enc")
    with SyncActaeClient(dsn) as client:
        assert client.run_tool(lambda ctx: "done", channel_id=channel, key_name="k",
                               tool_name="café", params=PARAMS) == "done"
        client.record_event(channel, "step", {})
        fork = client.fork_channel(channel, 1, tool_policies={"café": "block"}).channel_id
        with pytest.raises(ForkToolBlocked):
            client.run_tool(lambda ctx: "again", channel_id=fork, key_name="k2",
                            tool_name="café", params=PARAMS)
    assert stored(conn, channel) == (PARAMS,)


def test_an_async_client_too(dsn: str, conn: psycopg.Connection, unique: Callable[..., str],
                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PGCLIENTENCODING", "WIN1252")
    channel = unique("enc")

    async def main() -> None:
        async with ActaeClient(dsn) as client:
            await client.claim_execution(channel, "k", "café", PARAMS)

    asyncio.run(main())
    assert stored(conn, channel) == (PARAMS,)


def test_a_workers_listener_listens_in_any_client_encoding(
    dsn: str, conn: psycopg.Connection, unique: Callable[..., str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Worker given a DSN opens its LISTEN connection itself: in a SQL_ASCII session the
    queue's topic came back as bytes, the LISTEN failed at every try (logged at debug level
    only), and the worker found new runs only by polling."""
    monkeypatch.setenv("PGCLIENTENCODING", "SQL_ASCII")
    name = unique("enc-worker")
    worker = Worker(make_conninfo(dsn, application_name=name), queue=unique("q"),
                    poll_interval=60)

    @worker.agent("idle")
    async def idle(run: object) -> None:
        return None

    ready = threading.Event()
    thread = threading.Thread(target=worker.run, kwargs={
        "install_signal_handlers": False, "ready": ready.set})
    thread.start()
    try:
        assert ready.wait(30)
        listening = ("select count(*) from pg_stat_activity where application_name = %s"
                     " and query ilike 'listen %%'")
        deadline = time.monotonic() + 10
        while conn.execute(listening, (name,)).fetchone() != (1,):
            assert time.monotonic() < deadline, "the worker's listener never listened"
            time.sleep(0.1)
    finally:
        worker.stop()
        thread.join(30)
