"""run_tool and compensate: the safe way for an agent to call a side-effecting tool.

``await client.run_tool(charge, channel_id=..., key_name=..., tool_name=..., params=...)``
claims the execution ``(channel_id, key_name)`` and then, by claim outcome:

* ``replayed``: returns the stored result; the tool is not called.
* ``claimed`` / ``reclaimed``: calls ``tool(ctx)`` while heartbeating every third of the
  lease, then records the result (``complete_execution``) and returns it. An exception is
  recorded with ``fail_execution`` and re-raised: retryable unless it is a
  :class:`PermanentError`. With ``reclaimed`` and ``ambiguous`` (the previous attempt ended
  with no recorded outcome) and a ``reconcile`` callable, ``reconcile(ctx)`` asks the
  provider first; a non-None answer is recorded as the result and the tool is not called.
* ``in_progress``: another worker owns a live lease; waits with bounded exponential backoff
  and claims again, until the owner completes (``replayed``), fails, or its lease lapses
  (``reclaimed``). ``wait_timeout`` bounds the total wait (then :class:`ToolInProgress`).
* ``failed``: raises :class:`~actae.errors.ToolFailed` with the stored error
  (:class:`Cancelled` when the execution was cancelled).

A heartbeat that reports ``cancel_requested`` stops the tool (cancels the asyncio task; a
sync tool in its worker thread is abandoned and ``ctx.should_stop()`` turns true), records
``fail_execution(error="cancelled: <reason>", retryable=false)`` and raises
:class:`Cancelled`. A heartbeat that finds the lease taken over (``LeaseLost``) stops the
tool and raises.

Nothing is recorded when run_tool cannot know the outcome: a ``reconcile`` that raises, a
caller cancelled while its tool runs (the tool is cancelled too), a KeyboardInterrupt. The
lease then lapses and the next claim is ``reclaimed`` with ``ambiguous = true``, exactly as
after a crash. The value returned is the stored JSON form of the result (a tuple comes back
as a list), the same on the first call and on every replay.

The decision logic is one plan (see plans.py): a generator yielding database calls and the
local steps below (start the tool, wait for it up to a timeout, stop it, try a call). Both
clients drive it; only those local steps have an asyncio and a threaded implementation.
Sync tools run in a worker thread under both clients; async tools run as asyncio tasks
(under the sync client, in a worker thread's own event loop).

Idempotency key (``ctx.idempotency_key``, see :func:`idempotency_key`):
``"actae-" + sha256(channel_id + "\\0" + key_name)`` in hex, where channel_id is the channel the
execution runs in. It is the same on every retry and reclaim of the execution, so a
provider that deduplicates on it performs the effect once. A fork replays the results it
inherits without calling the tool; a tool the fork runs itself (after the fork point, or
under a ``live`` tool policy) is a new effect of a new run, so it gets the fork's own key:
reusing the ancestor's key would make a deduplicating provider return the ancestor's old
answer and silently turn ``live`` into ``replay``. Forbid a tool in a fork with ``block``.

Compensation: ``client.compensate(refund, channel_id=..., key_name=<original key>, ...)``
runs the compensating tool as its own durable execution under
:func:`compensation_key` (``"compensate:" + key_name``); ``ctx.original`` is the completed
original execution (with its result). It returns None without recording anything when the
original never completed, and raises :class:`ToolInProgress` while the original is still
claimed or in progress (settle it first: run it again with run_tool).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import inspect
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from actae import calls, plans
from actae.errors import ActaeError, NotFound, ToolFailed
from actae.models import Claim, Execution

#: A tool: ``tool(ctx) -> result`` or ``async def tool(ctx) -> result``; the result must be
#: JSON-serialisable (it is stored as jsonb and replayed as its JSON form).
Tool = Callable[["ToolContext"], Any]

_FIRST_BACKOFF = 0.05
_MAX_BACKOFF = 1.0
_STOP_GRACE = 1.0
_MAX_ERROR_CHARS = 16000


class PermanentError(Exception):
    """Raise this (or a subclass) from a tool when retrying cannot help (a declined card, an
    invalid request): the execution is failed non-retryably and every later claim of its key
    raises ToolFailed. Any other exception is recorded as retryable."""


class Cancelled(ToolFailed):
    """The execution was cancelled (actae.cancel_execution); the tool was stopped and the
    execution failed non-retryably with error ``cancelled: <reason>``."""

    sqlstate = "cancelled"


class ToolInProgress(ActaeError):
    """The execution is still owned by another attempt: run_tool's wait_timeout elapsed, or
    compensate was asked to undo an execution whose outcome is not recorded yet."""

    sqlstate = "in_progress"


def idempotency_key(channel_id: str, key_name: str) -> str:
    """The key a tool passes to its provider: stable across retries and reclaims of one
    execution; a fork's own executions get their own (see the module docstring)."""
    digest = hashlib.sha256(f"{channel_id}\0{key_name}".encode()).hexdigest()
    return f"actae-{digest}"


def compensation_key(key_name: str) -> str:
    """The key_name under which the compensation of ``key_name`` is recorded."""
    return f"compensate:{key_name}"


@dataclass(frozen=True)
class ToolContext:
    """What a tool gets: its arguments, the key to hand to the provider, and the fence."""

    channel_id: str
    key_name: str
    tool_name: str
    params: dict[str, Any]
    #: pass to the provider (e.g. an Idempotency-Key header); see idempotency_key().
    idempotency_key: str
    #: grows by one on every change of ownership: a downstream system that remembers the
    #: highest fence it has seen for this key can reject writes from a stale attempt.
    fence: int
    execution_id: UUID
    claim_token: UUID
    attempt: int
    #: the previous attempt ended without a recorded outcome (its effect may have happened).
    ambiguous: bool
    #: for a compensating tool: the completed execution being compensated.
    original: Execution | None = None
    _stop: threading.Event = field(default_factory=threading.Event, repr=False, compare=False)

    def should_stop(self) -> bool:
        """True once run_tool has stopped waiting for this tool (cancelled or lease lost);
        a long sync tool can poll it and return early."""
        return self._stop.is_set()


@dataclass(frozen=True)
class _Returned:
    value: Any


@dataclass(frozen=True)
class _Raised:
    error: BaseException


_Outcome = _Returned | _Raised


class LocalStep:
    """A plan step that runs in this process rather than in the database. Both clients
    execute it: ``await step.arun(client)`` (asyncio) or ``step.run(client)`` (threads)."""

    async def arun(self, client: Any) -> Any:
        raise NotImplementedError

    def run(self, client: Any) -> Any:
        raise NotImplementedError


async def _await(awaitable: Any) -> Any:
    return await awaitable


class _ThreadRun:
    """A tool running in a daemon worker thread, so the caller can stop waiting for it and a
    stopped tool never holds up the interpreter's exit (an executor thread would)."""

    def __init__(self, fn: Tool, ctx: ToolContext,
                 on_done: Callable[[_Outcome], None] | None = None) -> None:
        self.fn, self.ctx, self.on_done = fn, ctx, on_done
        self.done = threading.Event()
        self.outcome: _Outcome | None = None
        self.thread = threading.Thread(target=self._main, name="actae-tool", daemon=True)
        self.thread.start()

    def _main(self) -> None:
        outcome: _Outcome
        try:
            value = self.fn(self.ctx)
            if inspect.isawaitable(value):
                value = asyncio.run(_await(value))
            outcome = _Returned(value)
        except BaseException as exc:  # noqa: BLE001 - handed to the plan, which decides
            outcome = _Raised(exc)
        self.outcome = outcome
        self.done.set()
        if self.on_done is not None:
            self.on_done(outcome)


def _task_outcome(task: asyncio.Future[Any]) -> _Outcome:
    if task.cancelled():
        return _Raised(asyncio.CancelledError())
    error = task.exception()
    return _Raised(error) if error is not None else _Returned(task.result())


def _retrieve(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


@dataclass(frozen=True)
class _Start(LocalStep):
    fn: Tool
    ctx: ToolContext

    async def arun(self, client: Any) -> asyncio.Future[Any]:
        fn, ctx = self.fn, self.ctx
        if inspect.iscoroutinefunction(fn):
            task = asyncio.ensure_future(fn(ctx))
        else:  # a sync tool: a daemon thread, its outcome handed back to the loop
            loop = asyncio.get_running_loop()
            finished: asyncio.Future[Any] = loop.create_future()

            def settle(outcome: _Outcome) -> None:
                if finished.done():
                    return  # stopped: nobody waits for it any more
                if isinstance(outcome, _Returned):
                    finished.set_result(outcome.value)
                else:
                    finished.set_exception(outcome.error)

            def hand_back(outcome: _Outcome) -> None:
                with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits
                    loop.call_soon_threadsafe(settle, outcome)

            _ThreadRun(fn, ctx, hand_back)
            task = finished
        task.add_done_callback(_retrieve)
        return task

    def run(self, client: Any) -> _ThreadRun:
        return _ThreadRun(self.fn, self.ctx)


@dataclass(frozen=True)
class _Wait(LocalStep):
    """Wait up to timeout seconds: the tool's outcome, or None while it still runs."""

    handle: Any
    timeout: float

    async def arun(self, client: Any) -> _Outcome | None:
        task: asyncio.Future[Any] = self.handle
        try:
            await asyncio.wait({task}, timeout=self.timeout)
        except asyncio.CancelledError:
            task.cancel()  # the caller was cancelled: do not leave the tool running
            raise
        return _task_outcome(task) if task.done() else None

    def run(self, client: Any) -> _Outcome | None:
        run: _ThreadRun = self.handle
        run.done.wait(self.timeout)
        return run.outcome if run.done.is_set() else None


@dataclass(frozen=True)
class _Stop(LocalStep):
    """Stop the tool (cancel its task; a thread is abandoned). Returns its outcome when it
    finished anyway (it completed before it could be stopped), else None."""

    handle: Any
    ctx: ToolContext

    async def arun(self, client: Any) -> _Outcome | None:
        self.ctx._stop.set()
        task: asyncio.Future[Any] = self.handle
        if not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=_STOP_GRACE)
        if task.done() and not task.cancelled():
            return _task_outcome(task)
        return None

    def run(self, client: Any) -> _Outcome | None:
        self.ctx._stop.set()
        run: _ThreadRun = self.handle
        return run.outcome if run.done.is_set() else None


@dataclass(frozen=True)
class _Attempt(LocalStep):
    """Run a call and return its result, or the exception it raised (instead of raising)."""

    call: calls.Call[Any]

    async def arun(self, client: Any) -> Any:
        try:
            return await client.run(self.call)
        except Exception as exc:  # noqa: BLE001 - returned to the plan, which decides
            return exc

    def run(self, client: Any) -> Any:
        try:
            return client.run(self.call)
        except Exception as exc:  # noqa: BLE001 - returned to the plan, which decides
            return exc


def _describe(error: BaseException) -> str:
    text = f"{type(error).__qualname__}: {error}".rstrip(": ")
    return text[:_MAX_ERROR_CHARS]


def _stored_failure(execution: Execution) -> ToolFailed:
    error = execution.error or "failed"
    detail = {
        "execution_id": str(execution.id), "channel_id": execution.channel_id,
        "key_name": execution.key_name, "tool_name": execution.tool_name, "error": error,
    }
    cls = Cancelled if error.startswith("cancelled:") else ToolFailed
    return cls(error, detail)


def _context(execution: Execution, original: Execution | None) -> ToolContext:
    assert execution.claim_token is not None
    return ToolContext(
        channel_id=execution.channel_id, key_name=execution.key_name,
        tool_name=execution.tool_name, params=execution.params,
        idempotency_key=idempotency_key(execution.channel_id, execution.key_name),
        fence=execution.fence, execution_id=execution.id, claim_token=execution.claim_token,
        attempt=execution.attempt, ambiguous=execution.ambiguous, original=original,
    )


def _cancel(ctx: ToolContext, reason: str | None) -> plans.Plan[Any]:
    error = f"cancelled: {reason or 'no reason given'}"
    failed: Execution = yield calls.fail_execution(
        ctx.execution_id, error, ctx.claim_token, retryable=False, channel_id=ctx.channel_id
    )
    raise _stored_failure(failed)


def _supervise(fn: Tool, ctx: ToolContext, lease_seconds: int) -> plans.Plan[_Outcome]:
    """Run fn(ctx) and heartbeat every third of the lease until it finishes; stop it when
    the execution is cancelled or the lease is lost."""
    handle = yield _Start(fn, ctx)
    while True:
        outcome: _Outcome | None = yield _Wait(handle, lease_seconds / 3)
        if outcome is not None:
            return outcome
        beat = yield _Attempt(calls.heartbeat_execution(
            ctx.execution_id, ctx.claim_token, channel_id=ctx.channel_id))
        if isinstance(beat, Execution) and not beat.cancel_requested:
            continue
        if isinstance(beat, Exception) and not isinstance(beat, ActaeError):
            continue  # a dropped connection: try again at the next beat
        outcome = yield _Stop(handle, ctx)
        if outcome is not None:
            return outcome  # it finished before it could be stopped: record that
        if isinstance(beat, Execution):
            yield from _cancel(ctx, beat.cancel_reason)
        row = yield _Attempt(calls.get_execution(
            channel_id=ctx.channel_id, key_name=ctx.key_name))
        if isinstance(row, Execution) and row.status == "failed":
            raise _stored_failure(row) from beat
        raise beat


def _run_owned(
    tool: Tool, claim: Claim, reconcile: Tool | None, original: Execution | None
) -> plans.Plan[Any]:
    execution = claim.execution
    ctx = _context(execution, original)
    if execution.cancel_requested:
        yield from _cancel(ctx, execution.cancel_reason)
    outcome: _Outcome | None = None
    if claim.status == "reclaimed" and claim.ambiguous and reconcile is not None:
        found = yield from _supervise(reconcile, ctx, execution.lease_seconds)
        if isinstance(found, _Raised):
            # Nothing is recorded: the execution stays ambiguous, so the next attempt
            # reconciles again instead of calling the tool blind.
            raise found.error
        if found.value is not None:
            outcome = found
    if outcome is None:
        outcome = yield from _supervise(tool, ctx, execution.lease_seconds)
    if isinstance(outcome, _Returned):
        done: Execution = yield calls.complete_execution(
            ctx.execution_id, ctx.claim_token, outcome.value, channel_id=ctx.channel_id
        )
        return done.result
    error = outcome.error
    if isinstance(error, Exception):
        # Not for KeyboardInterrupt and friends: like a crash, they leave it ambiguous.
        yield calls.fail_execution(
            ctx.execution_id, _describe(error), ctx.claim_token,
            retryable=not isinstance(error, PermanentError), channel_id=ctx.channel_id,
        )
    raise error


def _run(
    tool: Tool, channel_id: str, key_name: str, tool_name: str, params: Mapping[str, Any],
    dedup_fields: Sequence[str] | None, lease_seconds: int, reconcile: Tool | None,
    wait_timeout: float | None, original: Execution | None,
) -> plans.Plan[Any]:
    deadline = None if wait_timeout is None else time.monotonic() + wait_timeout
    delay = _FIRST_BACKOFF
    while True:
        claim: Claim = yield calls.claim_execution(
            channel_id, key_name, tool_name, params, dedup_fields, lease_seconds
        )
        if claim.status == "replayed":
            return claim.result
        if claim.status == "failed":
            raise _stored_failure(claim.execution)
        if claim.status == "in_progress":
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise ToolInProgress(
                    f"execution {key_name} in channel {channel_id} is still in progress",
                    {"channel_id": channel_id, "key_name": key_name,
                     "lease_expires_at": claim.lease_expires_at.isoformat()},
                )
            yield plans.Sleep(delay if remaining is None else min(delay, remaining))
            cap = min(_MAX_BACKOFF, claim.execution.lease_seconds / 3)
            delay = min(delay * 2, max(cap, _FIRST_BACKOFF))
            continue
        return (yield from _run_owned(tool, claim, reconcile, original))


def run_tool(
    tool: Tool,
    *,
    channel_id: str,
    key_name: str,
    tool_name: str,
    params: Mapping[str, Any],
    dedup_fields: Sequence[str] | None = None,
    lease_seconds: int = 60,
    reconcile: Tool | None = None,
    wait_timeout: float | None = None,
) -> plans.Plan[Any]:
    """The plan behind ``client.run_tool``: call ``tool(ctx)`` at most once per successful
    outcome of ``(channel_id, key_name)`` and return its (stored) result. See the module
    docstring for every claim outcome."""
    return _run(tool, channel_id, key_name, tool_name, params, dedup_fields, lease_seconds,
                reconcile, wait_timeout, None)


def compensate(
    tool: Tool,
    *,
    channel_id: str,
    key_name: str,
    tool_name: str,
    params: Mapping[str, Any] | None = None,
    dedup_fields: Sequence[str] | None = None,
    lease_seconds: int = 60,
    reconcile: Tool | None = None,
    wait_timeout: float | None = None,
) -> plans.Plan[Any]:
    """The plan behind ``client.compensate``: undo the completed execution ``key_name`` by
    running ``tool(ctx)`` durably under ``compensation_key(key_name)``; ``ctx.original`` is
    the original execution. ``params`` defaults to ``{"compensates": key_name}``."""
    original = yield _Attempt(calls.get_execution(channel_id=channel_id, key_name=key_name))
    if isinstance(original, NotFound):
        return None
    if isinstance(original, BaseException):
        raise original
    if original.status == "failed":
        return None
    if original.status != "completed":
        raise ToolInProgress(
            f"execution {key_name} in channel {channel_id} has no recorded outcome yet;"
            " run it to completion before compensating it",
            {"channel_id": channel_id, "key_name": key_name, "status": original.status},
        )
    return (yield from _run(
        tool, channel_id, compensation_key(key_name), tool_name,
        params if params is not None else {"compensates": key_name}, dedup_fields,
        lease_seconds, reconcile, wait_timeout, original,
    ))
