"""What run_tool and run_tools record for tool outcomes that are not a plain return or a
plain exception: an async tool that cannot even be called, one that raises SystemExit or a
CancelledError of its own, a result the ledger cannot store, an error message PostgreSQL
cannot store. In every case the execution ends recorded (or, for an interrupt, left for the
next owner exactly as a crash would), never claimed and forgotten while its tool's effect
may have happened."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Callable
from typing import Any

import psycopg
import pytest

from actae import ActaeClient, SyncActaeClient, ToolContext, ToolFailed
from actae.errors import InvalidInput
from actae.plans.tools import ToolCall


def _rows(dsn: str, channel: str) -> dict[str, tuple[Any, ...]]:
    with psycopg.connect(dsn) as conn:
        return {r[0]: r[1:] for r in conn.execute(
            "select key_name, status, retryable, error from actae.executions"
            " where channel_id = %s", (channel,))}


async def ok(ctx: ToolContext) -> dict[str, str]:
    return {"ok": ctx.key_name}


def test_an_async_tool_that_cannot_be_called_is_recorded_and_its_batch_settled(
        dsn: str, unique: Callable[..., str]) -> None:
    channel = unique("uncallable")

    async def no_ctx() -> str:  # a tool written without its ctx argument
        return "never"

    async def main() -> None:
        async with ActaeClient(dsn) as client:
            with pytest.raises(TypeError):
                await client.run_tools([ToolCall(ok, "a", "t", {}),
                                        ToolCall(no_ctx, "b", "t", {}),  # type: ignore[arg-type]
                                        ToolCall(ok, "c", "t", {})], channel_id=channel)

    asyncio.run(main())
    rows = _rows(dsn, channel)
    assert rows["a"][0] == rows["c"][0] == "completed"
    assert rows["b"][:2] == ("failed", True) and "TypeError" in rows["b"][2]


def test_an_async_tools_system_exit_leaves_its_siblings_recorded(
        dsn: str, unique: Callable[..., str], caplog: pytest.LogCaptureFixture) -> None:
    """As for a sync tool: the interrupted element is left to the next owner (like a
    crash: nothing recorded; its async tool has ended, so its lease is given back), the
    others' results are recorded first, and nothing is logged as an exception nobody
    retrieved."""
    channel = unique("interrupt")

    async def leave(ctx: ToolContext) -> None:
        raise SystemExit(3)

    async def main() -> None:
        async with ActaeClient(dsn) as client:
            await client.run_tools([ToolCall(ok, "a", "t", {}), ToolCall(leave, "b", "t", {})],
                                   channel_id=channel)

    caplog.set_level(logging.ERROR, logger="asyncio")
    with pytest.raises(SystemExit):
        asyncio.run(main())
    gc.collect()
    rows = _rows(dsn, channel)
    assert rows["a"][0] == "completed"
    assert rows["b"] == ("in_progress", None, None)  # no outcome, the lease given back
    assert "never retrieved" not in caplog.text


def test_a_tool_raising_cancelled_error_itself_is_a_failure_not_a_cancellation(
        dsn: str, unique: Callable[..., str]) -> None:
    channel = unique("selfcancel")

    async def awaits_a_cancelled_future(ctx: ToolContext) -> None:
        future = asyncio.get_running_loop().create_future()
        future.cancel()
        await future  # raises CancelledError, though nobody cancelled the call

    async def main() -> bool:
        async with ActaeClient(dsn) as client:
            task = asyncio.ensure_future(client.run_tool(
                awaits_a_cancelled_future, channel_id=channel, key_name="k",
                tool_name="t", params={}))
            with pytest.raises(RuntimeError, match="without being cancelled"):
                await task
            return task.cancelled()

    assert asyncio.run(main()) is False
    # Under the sync client the async tool runs in a worker thread's own event loop.
    with SyncActaeClient(dsn, max_size=1) as client, \
            pytest.raises(RuntimeError, match="without being cancelled"):
        client.run_tool(awaits_a_cancelled_future, channel_id=channel, key_name="s",
                        tool_name="t", params={})
    rows = _rows(dsn, channel)
    for key in ("k", "s"):
        status, retryable, error = rows[key]
        assert (status, retryable) == ("failed", True) and "CancelledError" in error


@pytest.mark.parametrize("result", [{"x": float("nan")}, {"x": object()}],
                         ids=["nan", "not-json"])
def test_a_result_that_cannot_be_stored_fails_the_execution_for_good(
        dsn: str, unique: Callable[..., str], result: dict[str, Any]) -> None:
    """The tool ran (its effect may have happened): left claimed, its lease would lapse and
    the next claim would call it again. It is recorded as a permanent failure instead."""
    channel = unique("unstorable")
    calls: list[str] = []

    def tool(ctx: ToolContext) -> dict[str, Any]:
        calls.append(ctx.key_name)
        return result

    with SyncActaeClient(dsn, max_size=1) as client:
        with pytest.raises((InvalidInput, TypeError)):
            client.run_tool(tool, channel_id=channel, key_name="k", tool_name="t", params={})
        with pytest.raises(ToolFailed, match="could not be recorded"):
            client.run_tool(tool, channel_id=channel, key_name="k", tool_name="t", params={})
        with pytest.raises((InvalidInput, TypeError)):
            client.run_tools([ToolCall(tool, "b1", "t", {}),
                              ToolCall(lambda ctx: "fine", "b2", "t", {})],
                             channel_id=channel)
    assert calls == ["k", "b1"]
    rows = _rows(dsn, channel)
    assert rows["k"][:2] == rows["b1"][:2] == ("failed", False)
    assert rows["b2"][0] == "completed"


def test_an_error_message_postgres_cannot_store_is_recorded_escaped(
        dsn: str, unique: Callable[..., str]) -> None:
    channel = unique("nul")

    async def tool(ctx: ToolContext) -> None:
        raise ValueError("bad\x00byte \udc80")

    async def main() -> None:
        async with ActaeClient(dsn) as client:
            with pytest.raises(ValueError, match="bad"):
                await client.run_tool(tool, channel_id=channel, key_name="k", tool_name="t",
                                      params={})

    asyncio.run(main())
    status, retryable, error = _rows(dsn, channel)["k"]
    assert (status, retryable) == ("failed", True)
    assert error == "ValueError: bad\\x00byte \\udc80"
