"""Executes the local steps of actae.plans.tools: tools in asyncio tasks and worker threads.

``await arun(step)`` under ActaeClient (which runs an Attempt itself, through its coalescer),
``run(step, client)`` under SyncActaeClient.
Sync tools run in a daemon worker thread (reused across calls) under both clients (so the
caller can stop waiting for one, and a stopped tool never holds up the interpreter's exit
as an executor thread would); async tools run as asyncio tasks (under the sync client, in
the worker thread's own event loop). Private: nothing here is part of Actae's API.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import inspect
import os
import queue
import threading
from collections.abc import Callable
from typing import Any

from actae.context import Tool, ToolContext
from actae.plans import LocalStep
from actae.plans.tools import Attempt, Outcome, Raised, Returned, Start, Stop, Wait

STOP_GRACE = 1.0


async def _await(awaitable: Any) -> Any:
    return await awaitable


def _not_cancelled(exc: asyncio.CancelledError) -> RuntimeError:
    """What a tool's own CancelledError is recorded and raised as (it awaited something
    another party cancelled; nobody cancelled the call): a failure of the tool, retryable."""
    error = RuntimeError("the tool raised CancelledError without being cancelled")
    error.__cause__ = exc
    return error


class ThreadRun:
    """A tool running in a daemon worker thread (a reused one when one is idle)."""

    def __init__(self, fn: Tool, ctx: ToolContext,
                 on_done: Callable[[Outcome], None] | None = None) -> None:
        self.fn, self.ctx, self.on_done = fn, ctx, on_done
        # Held until the outcome is recorded: a bare lock is a cheaper signal than an Event
        # (a Condition and a lock per wait) for the one thread that waits.
        self.finished = threading.Lock()
        self.finished.acquire()
        self.outcome: Outcome | None = None
        # The caller's context (e.g. its trace span) goes with the tool into the thread.
        self.context = contextvars.copy_context()
        _submit(self)

    def wait(self, timeout: float) -> Outcome | None:
        """The outcome, waiting up to timeout seconds for it; None while the tool runs."""
        if self.finished.acquire(timeout=timeout):
            self.finished.release()  # later waits return at once
        return self.outcome

    def main(self) -> None:
        """Run the tool (in a worker thread) and record its outcome."""
        outcome: Outcome
        try:
            value = self.fn(self.ctx)
            if inspect.isawaitable(value):
                value = asyncio.run(_await(value))
            outcome = Returned(value)
        except asyncio.CancelledError as exc:
            outcome = Raised(_not_cancelled(exc))  # nothing cancels a tool in its thread
        except BaseException as exc:  # noqa: BLE001 - handed to the plan, which decides
            outcome = Raised(exc)
        self.outcome = outcome
        self.finished.release()
        if self.on_done is not None:
            self.on_done(outcome)


# Worker threads are reused: starting a thread per tool call cost more client CPU than the
# two database calls around it. A tool that is stopped (abandoned) keeps its worker; a new
# one starts whenever none is idle, and at most MAX_IDLE wait for work.
MAX_IDLE = 8
_jobs: queue.SimpleQueue[ThreadRun] = queue.SimpleQueue()
_idle_lock = threading.Lock()
_idle = 0


def _forked() -> None:
    """In a forked child: the idle workers did not come along (only the forking thread
    does), so none is counted; the queue and the lock start afresh."""
    global _jobs, _idle_lock, _idle
    _jobs, _idle_lock, _idle = queue.SimpleQueue[ThreadRun](), threading.Lock(), 0


os.register_at_fork(after_in_child=_forked)


def _submit(job: ThreadRun) -> None:
    global _idle
    with _idle_lock:
        reuse = _idle > 0
        if reuse:
            _idle -= 1  # that worker is promised this job
    if reuse:
        _jobs.put(job)
    else:
        threading.Thread(target=_serve, args=(job,), name="actae-tool", daemon=True).start()


def _serve(job: ThreadRun) -> None:
    global _idle
    while True:
        job.context.run(job.main)
        del job  # do not keep the finished tool's context alive while idle
        with _idle_lock:
            if _idle >= MAX_IDLE:
                return
            _idle += 1
        job = _jobs.get()


def is_async(fn: object) -> bool:
    """True for an async function (or a partial of one) and for an object whose
    ``__call__`` is one: calling it gives a coroutine to await on the caller's loop."""
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        type(fn).__call__)


def _task_outcome(task: asyncio.Future[Any]) -> Outcome:
    """The outcome of a finished Running.future: the tool's Outcome, its result (a task
    cancelled is a Raised CancelledError)."""
    if task.cancelled():
        return Raised(asyncio.CancelledError())
    return task.result()  # type: ignore[no-any-return]


def retrieve(task: asyncio.Future[Any]) -> None:
    """Mark a finished task's exception as retrieved (nobody else may look at it)."""
    if not task.cancelled():
        task.exception()


#: Tasks nobody awaits, running (the event loop keeps only weak references to its tasks).
_detached: set[asyncio.Future[Any]] = set()


def detach(task: asyncio.Future[Any]) -> None:
    """Let ``task`` run to its end with nobody awaiting it: kept until it finishes, then its
    exception is retrieved."""
    _detached.add(task)
    task.add_done_callback(_forget)


def _forget(task: asyncio.Future[Any]) -> None:
    _detached.discard(task)
    retrieve(task)


class Running:
    """A tool started under the asyncio client: the future of its outcome (an asyncio task,
    or a future settled from a sync tool's thread) and the callers waiting for it. The tool
    wakes them itself as it ends, a loop round sooner than a done callback (asyncio.wait)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, ctx: ToolContext) -> None:
        self.loop = loop
        self.ctx = ctx
        self.waiters: list[asyncio.Future[None]] = []
        self.future: asyncio.Future[Any]
        #: a sync tool's thread: its outcome is known there before it reaches the loop
        self.thread: ThreadRun | None = None
        #: an async tool's task has had its first loop round (the first Wait gives it one)
        self.started = False

    def wake(self, *_: object) -> None:
        for waiter in self.waiters:
            if not waiter.done():
                waiter.set_result(None)
        self.waiters.clear()

    async def wait(self, timeout: float) -> None:
        """Until the tool ends or timeout seconds pass."""
        waiter = self.loop.create_future()
        self.waiters.append(waiter)
        timer = self.loop.call_later(timeout, self.wake)
        try:
            await waiter
        finally:
            timer.cancel()


async def _tool(fn: Tool, ctx: ToolContext, running: Running) -> Outcome:
    # The tool is called here, in its task: an error calling it (a wrong signature) is its
    # outcome too, and a task cancelled before it runs never creates the coroutine. The
    # outcome is the task's result, not its exception: nothing is left to retrieve when the
    # plan abandons the tool, so the task needs no done callback (and the loop no round to
    # run one). KeyboardInterrupt and SystemExit are outcomes as a sync tool's are (the
    # plan records nothing for them and raises them in the caller).
    try:
        return Returned(await fn(ctx))
    except asyncio.CancelledError as exc:
        task = asyncio.current_task()
        if task is None or task.cancelling():
            raise  # cancelled (stopped, or its caller was): nothing to record
        return Raised(_not_cancelled(exc))
    except BaseException as exc:  # noqa: BLE001 - handed to the plan, which decides
        return Raised(exc)
    finally:
        running.wake()


def astart(step: Start) -> Running:
    """Start a tool under the asyncio client (a task, or a thread for a sync tool)."""
    fn, ctx = step.fn, step.ctx
    running = Running(asyncio.get_running_loop(), ctx)
    if is_async(fn):
        running.future = running.loop.create_task(_tool(fn, ctx, running))
    else:  # a sync tool: a daemon thread, its outcome handed back to the loop
        finished = running.future = running.loop.create_future()

        def settle(outcome: Outcome) -> None:
            if finished.done():
                return  # stopped: nobody waits for it any more
            finished.set_result(outcome)
            running.wake()

        def hand_back(outcome: Outcome) -> None:
            with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits
                running.loop.call_soon_threadsafe(settle, outcome)

        running.thread = ThreadRun(fn, ctx, hand_back)
    return running


async def _await_tool(step: Wait) -> Outcome | None:
    running: Running = step.handle
    task = running.future
    try:
        if not task.done() and running.thread is None and not running.started:
            # One loop round first: an async tool's first step runs in it (its task was
            # scheduled before this), and a tool that finishes there is read without a
            # waiter, a timer and the round its wake-up takes.
            running.started = True
            await asyncio.sleep(0)
        if not task.done():
            await running.wait(step.timeout)
    except asyncio.CancelledError:
        stop_started([running])  # the caller was cancelled: do not leave the tool running
        raise
    return _task_outcome(task) if task.done() else None


async def _astop(step: Stop) -> Outcome | None:
    step.ctx.request_stop()
    running: Running = step.handle
    task = running.future
    if not task.done() and running.thread is not None and running.thread.outcome is not None:
        # The sync tool finished and its outcome is on its way to the loop: it ended before
        # the stop, so it is recorded (as the sync client does), not dropped by the cancel.
        return running.thread.outcome
    if not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=STOP_GRACE)
    if task.done() and not task.cancelled():
        return _task_outcome(task)
    return None


def stop_started(handles: list[Any]) -> None:
    """Stop the tools of these Start handles that still run: their plan's driver is leaving
    early (its caller cancelled or interrupted, or a step raised), so nothing will wait for
    them, heartbeat them or record them. ``ctx.should_stop()`` turns true for each; an
    asyncio task (or the future of a sync tool's thread) is cancelled too. A thread cannot
    be stopped from outside: it is abandoned, as run_tool abandons one when a heartbeat
    says stop."""
    for handle in handles:
        handle.ctx.request_stop()
        if isinstance(handle, Running) and not handle.future.done():
            handle.future.cancel()


async def arun(step: LocalStep) -> Any:
    """Execute a local step under the asyncio client."""
    if isinstance(step, Wait):
        return await _await_tool(step)
    if isinstance(step, Start):
        return astart(step)
    if isinstance(step, Stop):
        return await _astop(step)
    raise TypeError(f"unknown local step {step!r}")  # Attempt: ActaeClient._step runs it


def run(step: LocalStep, client: Any) -> Any:
    """Execute a local step under the sync client."""
    if isinstance(step, Start):
        return ThreadRun(step.fn, step.ctx)
    if isinstance(step, Wait):
        thread_run: ThreadRun = step.handle
        return thread_run.wait(step.timeout)
    if isinstance(step, Stop):
        step.ctx.request_stop()
        stopped: ThreadRun = step.handle
        return stopped.outcome
    if isinstance(step, Attempt):
        try:
            return client.run(step.call)
        except Exception as exc:  # noqa: BLE001 - returned to the plan, which decides
            return exc
    raise TypeError(f"unknown local step {step!r}")
