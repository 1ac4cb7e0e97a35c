"""The pools a client opens for itself talk UTF-8 whatever the session's client encoding
would be (PGCLIENTENCODING here; a LATIN1 database or a role's setting alike): JSON goes out
as UTF-8 bytes, which a WIN1252 session stored as other characters, so a fork's block policy
on a tool named in it blocked nothing."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import psycopg
import pytest

from actae import ActaeClient, ForkToolBlocked, SyncActaeClient

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
