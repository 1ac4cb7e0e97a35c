"""A sync tool under the asyncio client that finishes just as run_tool stops it: its thread
has its outcome, whose hand-back to the event loop has not run yet. The stop must return
that outcome (to be recorded), not cancel the future and lose it. No database: the runtime
steps are driven directly, the loop held busy so the hand-back stays queued."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from typing import Any

from actae import ToolContext, _runtime
from actae.plans.tools import Returned, Start, Stop


def _ctx() -> ToolContext:
    return ToolContext(
        channel_id="c", key_name="k", tool_name="t", params={}, idempotency_key="i",
        fence=1, execution_id=uuid.uuid4(), claim_token=uuid.uuid4(), attempt=1,
        ambiguous=False,
    )


def test_stop_returns_the_outcome_of_a_sync_tool_that_already_finished() -> None:
    returning = threading.Event()

    def tool(ctx: ToolContext) -> dict[str, Any]:
        returning.set()
        return {"charged": True}

    async def scenario() -> tuple[Any, bool]:
        ctx = _ctx()
        running = await _runtime.arun(Start(tool, ctx))
        # Block the loop (no await) while the tool returns and its thread hands the outcome
        # back: the hand-back is queued behind this coroutine, the future still unsettled.
        assert returning.wait(10)
        time.sleep(0.05)
        assert not running.future.done()
        outcome = await _runtime.arun(Stop(running, ctx))
        return outcome, ctx.should_stop()

    outcome, told = asyncio.run(scenario())
    assert outcome == Returned({"charged": True})
    assert told, "the tool was still told to stop"
