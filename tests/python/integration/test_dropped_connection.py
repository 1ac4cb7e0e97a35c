"""A connection dropped while a tool runs (a restart, a failover, pg_terminate_backend): the
tool's outcome is still recorded, through another connection, so the tool does not run again
on the next claim; a failure that cannot be recorded raises the tool's own error."""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from actae import ActaeClient, SyncActaeClient, ToolContext
from actae.plans import tools


def _terminate(dsn: str, application: str) -> int:
    """End every backend of ``application`` (the client's pool) from another connection,
    and wait until they are gone (as after a restart); returns how many there were."""
    with psycopg.connect(dsn, autocommit=True) as admin:
        pids = [pid for (pid,) in admin.execute(
            "select pid from pg_stat_activity where application_name = %s",
            (application,)).fetchall()]
        admin.execute("select pg_terminate_backend(pid) from unnest(%s::int[]) as pid",
                      (pids,))
    deadline = time.monotonic() + 10
    for pid in pids:  # the process gone, its end of each socket is closed
        while _running(pid):
            assert time.monotonic() < deadline, f"backend {pid} did not end"
            time.sleep(0.01)
    return len(pids)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process (a server not run by us): it is there
        return True
    return True


def _ledger(dsn: str, channel: str) -> list[tuple[Any, ...]]:
    with psycopg.connect(dsn) as conn:
        return conn.execute("select key_name, status, attempt from actae.executions"
                            " where channel_id = %s order by key_name", (channel,)).fetchall()


@pytest.mark.parametrize("flavour", ["sync", "async", "sync run_tools"])
def test_a_tool_whose_connection_was_ended_still_has_its_result_recorded(
        dsn: str, unique: Callable[..., str], flavour: str) -> None:
    application = unique("drop")
    client_dsn = make_conninfo(dsn, application_name=application)
    channel = unique("dropped")
    runs: list[str] = []

    def charge(ctx: ToolContext) -> dict[str, int]:
        runs.append(ctx.key_name)
        assert _terminate(dsn, application) >= 1  # the claim's connection, at least
        return {"charged": 4200}

    if flavour == "async":
        async def main() -> Any:
            async with ActaeClient(client_dsn, max_size=2) as client:
                first = await client.run_tool(charge, channel_id=channel, key_name="k",
                                              tool_name="charge", params={})
                return first, await client.run_tool(charge, channel_id=channel,
                                                    key_name="k", tool_name="charge",
                                                    params={})
        first, again = asyncio.run(main())
    else:
        with SyncActaeClient(client_dsn, max_size=2) as client:
            if flavour == "sync":
                first = client.run_tool(charge, channel_id=channel, key_name="k",
                                        tool_name="charge", params={})
            else:
                first = client.run_tools([(charge, "k", "charge", {})],
                                         channel_id=channel)[0]
            again = client.run_tool(charge, channel_id=channel, key_name="k",
                                    tool_name="charge", params={})
    assert first == again == {"charged": 4200}
    assert runs == ["k"], "the tool ran again"
    assert _ledger(dsn, channel) == [("k", "completed", 1)]


def test_a_failure_that_cannot_be_recorded_raises_the_tools_own_error(
        dsn: str, unique: Callable[..., str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The server stays unreachable past the retries: the caller sees what the tool raised
    (with a note saying it was not recorded), not the connection's error."""
    monkeypatch.setattr(tools, "RECORD_RETRY_SECONDS", 0.5)
    application = unique("drop")
    channel = unique("dropped")
    with SyncActaeClient(make_conninfo(dsn, application_name=application),
                         max_size=1) as client:

        def broken(ctx: ToolContext) -> None:
            # Every connection the client opens from now on fails (a setting the server
            # refuses at connection), as when the server stays down.
            _terminate(dsn, application)
            client.pool.kwargs["options"] = "-c search_path=x -c statement_timeout=x"
            client.pool.timeout = 4  # the first record waits this long for a connection
            raise ValueError(f"the real problem {uuid.uuid4().hex[:6]}")

        started = time.monotonic()
        with pytest.raises(ValueError, match="the real problem") as raised:
            client.run_tool(broken, channel_id=channel, key_name="k", tool_name="t",
                            params={})
        # The first record waits the pool's timeout for a connection; the records sent
        # again wait only what is left of RECORD_RETRY_SECONDS (each waited 4 s more).
        assert time.monotonic() - started < 7
    assert any("could not record this failure" in note
               for note in getattr(raised.value, "__notes__", []))
    assert _ledger(dsn, channel) == [("k", "claimed", 1)]
