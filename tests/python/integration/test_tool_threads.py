"""Sync tools run on reused worker threads: consecutive run_tool calls share one idle worker,
a tool still running when the next call starts gets a worker of its own, and a tool still
sees the caller's context variables."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from collections.abc import Callable
from typing import Any

from actae import ActaeClient, SyncActaeClient, ToolContext

marker: contextvars.ContextVar[str] = contextvars.ContextVar("marker", default="unset")


def test_sync_tools_reuse_an_idle_worker_thread(dsn: str, unique: Callable[..., str]) -> None:
    channel = unique("threads")
    seen: list[tuple[int, str, str]] = []

    def tool(ctx: ToolContext) -> dict[str, Any]:
        me = threading.current_thread()
        seen.append((me.ident or 0, me.name, marker.get()))
        return {"k": ctx.key_name}

    def workers() -> set[int]:
        return {t.ident or 0 for t in threading.enumerate() if t.name == "actae-tool"}

    with SyncActaeClient(dsn, max_size=1) as client:
        for i in range(5):
            marker.set(f"call-{i}")
            assert client.run_tool(tool, channel_id=channel, key_name=f"k{i}",
                                   tool_name="t", params={}) == {"k": f"k{i}"}
            if i == 0:
                after_first = workers()
    assert {name for _, name, _ in seen} == {"actae-tool"}
    assert seen[0][0] != threading.get_ident()
    # Idle workers (from earlier tests too) serve the later calls: no thread is started.
    assert workers() == after_first
    assert {ident for ident, _, _ in seen} <= after_first
    assert [m for _, _, m in seen] == [f"call-{i}" for i in range(5)]


def test_a_busy_worker_is_not_handed_a_second_tool(dsn: str, unique: Callable[..., str]) -> None:
    channel = unique("threads")
    release = threading.Event()
    started = threading.Event()
    idents: dict[str, int] = {}

    def slow(ctx: ToolContext) -> str:
        idents["slow"] = threading.get_ident()
        started.set()
        release.wait(10)
        return "slow"

    def quick(ctx: ToolContext) -> str:
        idents["quick"] = threading.get_ident()
        return "quick"

    with SyncActaeClient(dsn, max_size=2) as client:
        outcome: list[Any] = []
        caller = threading.Thread(target=lambda: outcome.append(client.run_tool(
            slow, channel_id=channel, key_name="slow", tool_name="t", params={})))
        caller.start()
        assert started.wait(10)
        assert client.run_tool(quick, channel_id=channel, key_name="quick", tool_name="t",
                               params={}) == "quick"
        release.set()
        caller.join(10)
    assert outcome == ["slow"]
    assert idents["slow"] != idents["quick"]


def test_a_sync_tool_is_told_to_stop_when_its_asyncio_caller_is_cancelled(
    dsn: str, unique: Callable[..., str]
) -> None:
    """Under ActaeClient a sync tool runs in a worker thread, which cannot be cancelled:
    when the caller is, ctx.should_stop() turns true so the tool can end early."""
    seen: list[str] = []
    done = threading.Event()

    def tool(ctx: ToolContext) -> str:
        try:
            for _ in range(60):
                if ctx.should_stop():
                    seen.append("stopped")
                    return "stopped"
                time.sleep(0.05)
            seen.append("ran to the end")
            return "done"
        finally:
            done.set()

    async def main() -> None:
        async with ActaeClient(dsn, max_size=1) as client:
            try:
                await asyncio.wait_for(client.run_tool(
                    tool, channel_id=unique("threads"), key_name="k", tool_name="t",
                    params={}), 0.2)
            except TimeoutError:
                pass
            else:
                raise AssertionError("run_tool returned before the tool could end")

    asyncio.run(main())
    assert done.wait(5)
    assert seen == ["stopped"]
