"""Processes forked from one that used Actae (multiprocessing's default on Linux before
Python 3.14, a server's pre-forked workers): a client opened in the child runs sync tools
(the reused tool threads did not come along, and the first one handed to them waited for
ever), and a client opened in the parent refuses the child's calls with a clear error
(its connections are the parent's: the child read the parent's replies)."""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from psycopg.conninfo import make_conninfo
from psycopg_pool import PoolClosed

from actae import NotFound, SyncActaeClient
from actae._pool import ForkedPool
from actae.plans.tools import RECORD_RETRY_SECONDS

FORK = multiprocessing.get_context("fork")


def _pid_tool(ctx: Any) -> str:
    import os
    return f"ran in {os.getpid()}"


def _child_with_its_own_client(dsn: str, channel: str, out: Any) -> None:
    with SyncActaeClient(dsn) as client:
        out.send(client.run_tool(_pid_tool, channel_id=channel, key_name="child",
                                 tool_name="t", params={}))


def _child_with_the_parents_client(client: SyncActaeClient, channel: str, out: Any) -> None:
    try:
        client.run_tool(_pid_tool, channel_id=channel, key_name="child", tool_name="t",
                        params={})
        out.send("ran")
    except ForkedPool as exc:
        out.send(str(exc))


def _in_child(target: Callable[..., None], *args: object) -> object:
    mine, theirs = FORK.Pipe()
    child = FORK.Process(target=target, args=(*args, theirs))
    child.start()
    try:
        assert mine.poll(30), "the child answered nothing in 30 s"
        return mine.recv()
    finally:
        child.join(10)
        if child.is_alive():
            child.kill()


def test_a_child_runs_sync_tools_with_a_client_of_its_own(
    dsn: str, unique: Callable[..., str],
) -> None:
    channel = unique("fork")
    with SyncActaeClient(dsn) as client:  # leaves an idle tool thread in this process
        client.run_tool(_pid_tool, channel_id=channel, key_name="parent", tool_name="t",
                        params={})
    answer = _in_child(_child_with_its_own_client, dsn, channel)
    assert isinstance(answer, str) and answer.startswith("ran in ")


def test_a_client_opened_before_the_fork_refuses_the_childs_calls(
    dsn: str, unique: Callable[..., str],
) -> None:
    channel = unique("fork")
    with SyncActaeClient(dsn) as client:
        client.record_event(channel, "e", {})
        answer = _in_child(_child_with_the_parents_client, client, channel)
        assert isinstance(answer, str) and "open a client in each process" in answer
        # the parent's connections were not touched
        assert client.get_channel(channel).head_cursor == 1
        with pytest.raises(NotFound):
            client.get_execution(channel_id=channel, key_name="child")


def _child_opens_the_parents_client(client: SyncActaeClient, out: Any) -> None:
    try:
        with client:
            out.send("opened")
    except ForkedPool as exc:
        out.send(str(exc))


def _child_closes_the_parents_client(client: SyncActaeClient, out: Any) -> None:
    client.close()
    out.send("closed")


def test_a_client_made_before_the_fork_and_opened_in_the_child_refuses_at_once(
    dsn: str,
) -> None:
    """(psycopg_pool's state made in the parent never opened in the child: the open waited
    30 s and raised PoolTimeout.)"""
    client = SyncActaeClient(dsn)
    started = time.monotonic()
    answer = _in_child(_child_opens_the_parents_client, client)
    assert isinstance(answer, str) and "in each process after the fork" in answer
    assert time.monotonic() - started < 20


def test_a_child_closing_the_parents_client_leaves_its_sessions_alone(
    dsn: str, conn: psycopg.Connection, unique: Callable[..., str],
) -> None:
    """(Closing it in the child sent the server a goodbye on the parent's sockets: the
    parent's sessions ended under it.)"""
    name = unique("fork-close")
    sessions = ("select count(*) from pg_stat_activity where application_name = %s")
    with SyncActaeClient(make_conninfo(dsn, application_name=name), min_size=2) as client:
        before = conn.execute(sessions, (name,)).fetchone()
        assert before is not None and before[0] >= 2
        assert _in_child(_child_closes_the_parents_client, client) == "closed"
        time.sleep(0.5)
        assert conn.execute(sessions, (name,)).fetchone() == before


def test_a_call_in_flight_when_its_client_closes_raises_at_once(
    dsn: str, unique: Callable[..., str],
) -> None:
    """A tool's outcome that cannot be recorded because the client was closed meanwhile
    raises PoolClosed; it was sent again for RECORD_RETRY_SECONDS, as for a lost connection."""
    channel = unique("closed")
    started = threading.Event()
    raised: list[BaseException] = []

    def tool(ctx: Any) -> str:
        started.set()
        time.sleep(0.5)
        return "done"

    client = SyncActaeClient(dsn)
    client.open()

    def call() -> None:
        try:
            client.run_tool(tool, channel_id=channel, key_name="k", tool_name="t", params={})
        except BaseException as exc:  # noqa: BLE001 - looked at below
            raised.append(exc)

    caller = threading.Thread(target=call)
    caller.start()
    assert started.wait(30)
    client.close()
    caller.join(RECORD_RETRY_SECONDS / 2)
    assert not caller.is_alive(), "run_tool still retried its record against a closed pool"
    assert len(raised) == 1 and isinstance(raised[0], PoolClosed)

