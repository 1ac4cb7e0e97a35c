"""Concurrent run_tool claims and completions of one channel, sent as one batch (ActaeClient).

A model emits several tool calls at once and the frameworks run them concurrently
(LangGraph's ToolNode, Pydantic AI and the OpenAI Agents SDK all gather them on the event
loop). Each goes through ``run_tool``, whose plan claims, runs the tool and completes. Under
ActaeClient those claims meet here: every claim of one channel (and lease) that arrives
while the loop is still starting the others, that is until a loop round passes with no new
one, goes to the database as one ``claim_executions``; completions of one channel likewise
as one ``complete_executions(..., channel_id=)``. N tools started together cost 2
round trips and 2 commits instead of 2N, with no change to the plans or the adapters.

A call that nothing could join is sent at once, without waiting that loop round (about
20 us of a lone run_tool's wall time per call here): a claim or a completion when nothing
else is ready to run on the loop (every other task is waiting for I/O or a timer, so no
other call can arrive in the next round), and a completion when this client drives no
other plan (only a plan that claimed can complete). The first test reads the loop's ready
queue, which asyncio's own loop has; on any other loop claims always wait the round.

Nothing about an element changes: the batch functions give each element the outcome its
single call would, and they are all-or-nothing, so when a batch raises (one element's
conflict, a blocked tool, a fenced token) nothing was written and every element is sent
again on its own, getting its own outcome or its own error. A caller cancelled before the
batch is sent is left out of it; one cancelled while the batch is in flight has the claim
it won failed at once (retryable, no tool ran), as its single claim would have been
undone. A lone call is sent as the single call. Private: nothing here is part of Actae's
API.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

from actae import calls
from actae._runtime import retrieve
from actae.models import Claim

#: At most this many calls go in one batch (the functions take up to 1000).
MAX_BATCH = 100

Execute = Callable[[calls.Call[Any]], Awaitable[Any]]
Waiting = list[tuple[calls.Call[Any], "asyncio.Future[Any]"]]


def _group(call: calls.Call[Any]) -> tuple[Any, ...] | None:
    """The batch a call can join (same function, channel and shared arguments), or None."""
    if call.conn is not None or call.binary:
        return None
    params = call.params
    if call.sql == calls.CLAIM:
        return (calls.CLAIM, params["channel_id"], params["lease_seconds"])
    if call.sql == calls.COMPLETE and params["channel_id"] is not None:
        return (calls.COMPLETE, params["channel_id"])
    return None


def _batch(key: tuple[Any, ...], elements: list[calls.Call[Any]]) -> calls.Call[Any]:
    """The one claim_executions / complete_executions call doing every element's (their
    JSON arguments go as they were encoded for the single calls)."""
    params = [e.params for e in elements]
    if key[0] == calls.CLAIM:
        fields = [p["dedup_fields"] for p in params]
        return calls.claim_executions(
            key[1], [p["key_name"] for p in params], [p["tool_name"] for p in params],
            [p["params"] for p in params],
            None if all(f is None for f in fields) else fields, key[2])
    return calls.complete_executions(
        [p["execution_id"] for p in params], [p["claim_token"] for p in params],
        [p["result"] for p in params], channel_id=key[1])


def _nothing_ready() -> bool:
    """True when no callback but cancelled ones waits in the running loop's ready queue:
    no other task can run before the loop next polls for I/O. False on a loop without
    asyncio's ready queue (uvloop), which keeps the round's wait."""
    ready = getattr(asyncio.get_running_loop(), "_ready", None)
    # tuple() copies the queue in one C call: another thread's call_soon_threadsafe (a sync
    # tool ending) cannot append to it halfway, as it could between a generator's steps.
    return ready is not None and (not ready or all(h.cancelled() for h in tuple(ready)))


def _orphan(row: Any) -> bool:
    """A claim its caller won and owns, to release when that caller is gone. Not an
    ambiguous reclaim: an earlier attempt may have run the tool, and a failure recorded now
    would hide that from the next claim (which must reconcile); it lapses instead."""
    return (isinstance(row, Claim) and row.status in ("claimed", "reclaimed")
            and not row.execution.ambiguous and row.claim_token is not None)


def release_call(claim: Any, why: str) -> calls.Call[Any] | None:
    """The call that releases a claim whose caller is gone before running its tool (see
    _orphan; None for any other row): the execution is failed, retryable, before any tool
    ran, so the next claim of the key reclaims it at once, unambiguously, instead of waiting
    out a lease nobody holds and then reconciling a call that never ran."""
    if not _orphan(claim):
        return None
    return calls.fail_execution(
        claim.execution.id, f"cancelled before the tool ran: {why}", claim.claim_token,
        retryable=True, channel_id=claim.execution.channel_id)


def _hand(future: asyncio.Future[Any], row: Any, orphans: list[Claim]) -> None:
    """Give a caller its row; a cancelled caller's claim goes to ``orphans``."""
    if not future.done():
        future.set_result(row)
    elif _orphan(row):
        orphans.append(row)


class Coalescer:
    """Batches the eligible calls of concurrent plans; ``execute`` runs one call.

    The first call of a batch leads it: it yields to the loop until a round brings no new
    call (or nothing else is left ready to run), sends the batch and hands every other
    caller its row (or error). A call arriving while a batch fills joins it and waits for
    its row."""

    def __init__(self, execute: Execute) -> None:
        self._execute = execute
        self._filling: dict[tuple[Any, ...], Waiting] = {}
        #: plans the client is driving now (ActaeClient.drive counts them)
        self.plans = 0

    async def run(self, call: calls.Call[Any]) -> Any:
        key = _group(call)
        if key is None:
            return await self._execute(call)
        filling = self._filling.get(key)
        if filling is None and (_nothing_ready() or (key[0] == calls.COMPLETE
                                                     and self.plans <= 1)):
            return await self._execute(call)
        if filling is not None and len(filling) < MAX_BATCH:
            future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            filling.append((call, future))
            return await self._row(future)
        return await self._lead(key, call)

    async def _lead(self, key: tuple[Any, ...], call: calls.Call[Any]) -> Any:
        others: Waiting = []
        self._filling[key] = others
        try:
            seen = -1
            while len(others) > seen and len(others) < MAX_BATCH:
                seen = len(others)
                await asyncio.sleep(0)
                if _nothing_ready():
                    break  # no other task can run, so join, before the loop polls
        except BaseException:
            # The leader was cancelled: the others are still sent, without it.
            self._close(key, others)
            if others:
                self._spawn(key, others)
            raise
        self._close(key, others)
        if not others:
            return await self._execute(call)
        # Sent in a task of its own: the leader cancelled now must not cancel the others'.
        mine: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._spawn(key, [(call, mine), *others])
        return await self._row(mine)

    def _spawn(self, key: tuple[Any, ...], waiting: Waiting) -> None:
        """Send a batch in a task of its own, whoever of its callers is cancelled."""
        asyncio.get_running_loop().create_task(self._send(key, waiting)).add_done_callback(
            retrieve)

    def _close(self, key: tuple[Any, ...], others: Waiting) -> None:
        if self._filling.get(key) is others:
            del self._filling[key]

    async def _send(self, key: tuple[Any, ...], waiting: Waiting) -> None:
        """Every element's row or error on its future: one batch call, or (for one element,
        or when the batch raised and so wrote nothing) each element's own call. Every row
        is handed out before the claims of cancelled callers are released (_release)."""
        waiting = [w for w in waiting if not w[1].done()]  # callers cancelled meanwhile
        orphans: list[Claim] = []
        try:
            if len(waiting) > 1:
                try:
                    rows = await self._execute(_batch(key, [call for call, _ in waiting]))
                except Exception:  # noqa: BLE001 - nothing was written: each on its own below
                    pass
                else:
                    for (_, future), row in zip(waiting, rows, strict=True):
                        _hand(future, row, orphans)
                    return
            for call, future in waiting:
                if future.done():
                    continue  # its caller was cancelled while the batch was refused
                try:
                    result = await self._execute(call)
                except Exception as exc:  # noqa: BLE001 - the element's own error, handed back
                    if not future.done():
                        future.set_exception(exc)
                else:
                    _hand(future, result, orphans)
        finally:
            for row in orphans:
                await self._release(row)

    async def _row(self, future: asyncio.Future[Any]) -> Any:
        """A caller's row from its batch. A caller cancelled after the row was handed to it,
        before it could read it (a cancel made ready in the same loop round), releases the
        claim it won in a task of its own (the caller leaves at once)."""
        try:
            return await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled() and _orphan(future.result()):
                asyncio.get_running_loop().create_task(
                    self._release(future.result())).add_done_callback(retrieve)
            raise

    async def _release(self, claim: Claim) -> None:
        """Release the claim of a caller that was cancelled while it was in flight
        (release_call), as after a cancelled single claim (whose statement is cancelled with
        it). When that fails too, the lease lapses, as on a crash."""
        release = release_call(claim, "its caller was cancelled while the claim was in flight")
        if release is None:
            return
        with contextlib.suppress(Exception):
            await self._execute(release)
