"""actae.Worker: executes runs (SPEC section 7) until they finish.

    worker = Worker(dsn_or_client, queue="default", concurrency=8)

    @worker.agent("refund")
    async def refund(run: Run) -> dict:
        order = await run.tool(lookup_order, key="lookup", params={...})
        approval = await run.wait_for_event("approval", timeout=timedelta(days=2), key="approve")
        await run.sleep(timedelta(seconds=30), key="cool-off")
        return await run.tool(issue_refund, key="refund", params={...})

    worker.run()               # blocking entry point; `await worker.run_async()` in asyncio

How a run executes. The worker claims due runs (``claim_run``; as many as it has free
slots, in one statement and one commit) and calls each run's agent from the top. Every
completed tool call replays from the ledger (``run.tool`` is ``client.run_tool`` on the
run's channel); an elapsed sleep and a received event pass through. When the agent
returns, ``complete_run`` records its JSON result; when it raises, ``fail_run`` records the
error (retried with backoff unless it is an :class:`~actae.PermanentError` or a tool call's
final failure, :class:`~actae.ToolFailed`, alone or with others of its kind in a TaskGroup).
``run.sleep`` / ``run.wait_for_event`` that must wait *park* the run in the database (its
token dies) and unwind the agent with an internal ``BaseException`` (so ``except Exception``
in agent code does not catch it); the worker records nothing more and moves on. The run is
claimed again — by any worker — when its timer fires or its event arrives.

Prefetch. Once per attempt, before the agent runs, every completed execution the channel
sees is loaded, a fork's inherited results included (its tool policies applied): the claim
itself brings the first 10 000 (``claim_runs_with_completed``: claim_run and
``list_completed(channel)`` per run, in one statement, so one round trip), and a channel
with more is read on with ``list_completed``, a page per 10 000 keys. A tool call whose
key, tool name, params and dedup fields match one of them returns the stored result with
no round trip. Any difference falls through to ``run_tool``, which lets the database decide (replay
or ``AC409``), so the shortcut never changes an answer.

Keys. ``key=`` names a step explicitly (recommended: stable across code changes). Without
it, the key is derived deterministically from the step's position: ``<tool name>#<n>`` for
the n-th call of that tool in this execution of the agent, ``sleep#<n>`` and
``wait:<event type>#<n>``, ``transition:<event type>#<n>``. Derived keys are correct as
long as the agent takes the same path on every re-execution (branch only on recorded
results, the input, received events); an agent that branches on anything else must pass
explicit keys.

Liveness. The worker heartbeats each run every third of its lease. A heartbeat that says
``cancel_requested`` cancels the agent task and ends the run as cancelled (``fail_run``); a
heartbeat that finds the run taken over (``LeaseLost``: this worker stalled past its lease)
cancels the agent task and records nothing: the new owner's writes win and this worker's
late ones are rejected by the fences. A tool call's claim and an event are the channel's,
not fenced by the run's token: before one, a worker that may have stalled past a third of
its lease heartbeats first (Run._fenced), so it starts no step of a run taken over or ended.
The worker LISTENs on its queue's topic, so a run that becomes due now (started, or its
event arrived) is claimed at once; timers and lapsed leases are found by polling every
``poll_interval`` seconds (default 1 s) while idle.

Shutdown. SIGTERM or SIGINT (with ``run()``/``install_signal_handlers``), or ``stop()``:
the worker stops claiming (a completion already sent may still hand its slot to the next
due run, which then runs like the others), lets running agents finish for up to
``shutdown_grace`` seconds (default 30), then cancels the agents still running without
recording anything: their leases lapse and another worker reclaims them, as after a crash.
A run recording its outcome at that moment gets a few seconds more to finish doing so.
The same signal again a second or more later (or stop() again) ends the grace at once,
signals that come together are one stop, and an agent that ignores its cancellation is left
behind (logged), so it cannot hold the process.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import math
import os
import signal
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any, TypeVar, cast

import psycopg
from psycopg import sql

from actae import _json, calls
from actae._runtime import is_async
from actae.client import ActaeClient, pool_kwargs
from actae.context import Tool
from actae.errors import (
    ActaeError,
    IdempotencyConflict,
    InvalidInput,
    LeaseLost,
    NotFound,
    PermanentError,
    ToolFailed,
    VersionConflict,
    unreached,
    with_hint,
)
from actae.models import Execution
from actae.plans.tools import BEAT_RETRY, BEAT_WAIT, describe, storable
from actae.runs import RunRecord, SleepResult, WaitResult

log = logging.getLogger("actae.worker")

Agent = Callable[["Run"], Awaitable[Any]]
A = TypeVar("A", bound=Agent)
P = TypeVar("P", SleepResult, WaitResult)
#: keys per list_completed read in the prefetch.
_PREFETCH_PAGE = 10000
# SQLSTATE classes of a statement too large to run: program limit exceeded, out of resources
_TOO_LARGE = ("54", "53")
_MAX_CLAIM = 1000  # claim_runs takes at most this many runs per call (max_runs)
_RECORD_GRACE = 5.0  # seconds past shutdown_grace for runs recording their outcome
_CANCEL_GRACE = 1.0  # seconds a cancelled task gets to unwind before it is left behind
_AGAIN_AFTER = 1.0  # seconds after a signal before the same signal again ends the grace
# The worker's own statements (claims, heartbeats, a lease given back) wait at most
# BEAT_WAIT seconds for a connection from the pool, as a tool's heartbeats do: while the
# database is out of reach a claim gives up in time for a stop to be seen; a run's failing
# heartbeat is sent again every BEAT_RETRY seconds (actae.plans.tools).


#: The most bytes of a wait_key or an operation_id (SPEC §3a, §7).
_KEY_BYTES = 256


class _Parked(BaseException):  # noqa: N818 - control flow, not an error
    """Unwinds an agent whose run was parked (sleeping/waiting) or ended while parking."""


class ConcurrentWait(PermanentError):
    """A sleep or wait begun while another of the same run was in progress (two of them in
    an asyncio.TaskGroup or gather). A run parks for one thing at a time: the first to park
    it would leave the other unrecorded, and an event recorded before a wait is recorded is
    not that wait's answer, so the other's event could be missed for good. The run fails
    (not retried: every attempt would do the same), and neither step is sent when both
    began together."""


class Run:
    """What an agent gets: the run's input and the durable steps on its channel."""

    def __init__(self, worker: Worker, record: RunRecord, claimed_from: float) -> None:
        assert record.claim_token is not None
        self.worker = worker
        #: the task running the agent (set by the worker once it starts it)
        self.agent_task: asyncio.Task[Any] | None = None
        # The lease's end by this process's monotonic clock, never later than the server's:
        # counted from when the claim (or the last heartbeat) was sent.
        self._lease_until = claimed_from + worker.lease_seconds
        self.client = worker.client
        self.record = record
        self.channel_id = record.channel_id
        self.agent = record.agent
        self.input: Any = record.input
        self.attempt = record.attempt
        self.wake_reason = record.wake_reason
        self.claim_token = record.claim_token
        self.cancel_requested = False
        self._counters: dict[str, int] = {}
        self._completed: dict[str, Execution] = {}
        #: the sleep or wait in progress (its key, and whether it parked the run once sent),
        #: and the key of one another began beside
        self._parking: tuple[str, asyncio.Future[str | None]] | None = None
        self._clashed: str | None = None
        #: tool calls answered from the prefetched executions in this attempt.
        self.prefetch_hits = 0

    async def renew(self) -> None:
        """heartbeat_run: the lease is extended (``_lease_until``), or, when the run was
        taken over (AC423) or is over or gone (AC409 / AC404: e.g. a claimer ended it as
        cancelled while this worker was stalled past its lease), the agent task is cancelled
        and LeaseLost raised. A cancellation requested by an operator cancels the agent task
        too (the worker then ends the run as cancelled)."""
        sent = time.monotonic()
        try:
            row = await self.client.run(replace(
                calls.heartbeat_run(self.channel_id, self.claim_token), wait=BEAT_WAIT))
        except (LeaseLost, IdempotencyConflict, NotFound) as exc:
            if self.agent_task is not None and self.agent_task is not asyncio.current_task():
                self.agent_task.cancel()  # from the heartbeat, or a task of the agent's own
            if isinstance(exc, LeaseLost):
                raise
            raise LeaseLost(str(exc), exc.detail) from exc
        self._lease_until = sent + self.worker.lease_seconds
        if row.cancel_requested and not self.cancel_requested:
            self.cancel_requested = True
            if self.agent_task is not None:
                self.agent_task.cancel()

    async def _fenced(self) -> None:
        """Before a write the run's token does not fence (a tool's claim, an event): when
        the lease may have lapsed (this process stalled past a third of it: suspended, a
        blocked event loop), renew it first, so a worker whose run was taken over or ended
        meanwhile writes nothing. Heartbeats every third of the lease keep more than a
        third of it left, so a worker that did not stall sends no extra round trip."""
        if time.monotonic() >= self._lease_until - self.worker.lease_seconds / 3:
            await self.renew()
            if self.cancel_requested:
                await asyncio.sleep(0)  # the agent's task stops here (renew cancelled it)

    def _key(self, given: str | None, prefix: str, limit: int = 1024) -> str:
        """``given``, else ``<prefix>#<n>`` for the n-th step with this prefix in this
        execution of the agent (the same on every re-execution). A derived key over
        ``limit`` bytes (a long event type in it) names the prefix's SHA-256 instead, so
        every event type the server accepts gets a key it accepts too."""
        if given is not None:
            return given
        n = self._counters.get(prefix, 0) + 1
        self._counters[prefix] = n
        key = f"{prefix}#{n}"
        if len(key.encode()) > limit:
            kind = prefix.split(":", 1)[0]
            key = f"{kind}:sha256:{hashlib.sha256(prefix.encode()).hexdigest()}#{n}"
        return key

    async def tool(
        self,
        fn: Tool,
        *,
        key: str | None = None,
        params: Mapping[str, Any] | None = None,
        tool_name: str | None = None,
        dedup_fields: Sequence[str] | None = None,
        reconcile: Tool | None = None,
        lease_seconds: int | None = None,
    ) -> Any:
        """``run_tool`` on the run's channel: the tool runs at most once per successful
        outcome of its key; a completed one replays (from the prefetch when it matches).
        The tool's lease defaults to the worker's (heartbeats keep it alive while the tool
        runs), so a worker that dies mid-tool frees the run and its tool call together."""
        name = tool_name or getattr(fn, "__name__", "tool")
        key_name = self._key(key, name)
        args: dict[str, Any] = dict(params or {})
        done = self._completed.get(key_name)
        if done is not None and _same_call(done, name, args, dedup_fields):
            self.prefetch_hits += 1
            return done.result
        await self._fenced()
        return await self.client.run_tool(
            fn, channel_id=self.channel_id, key_name=key_name, tool_name=name, params=args,
            dedup_fields=dedup_fields, reconcile=reconcile,
            lease_seconds=self.worker.lease_seconds if lease_seconds is None else lease_seconds,
        )

    async def load_completed(self, first_page: list[Execution] | None = None) -> None:
        """Prefetch the channel's completed executions: tool() then replays one that matches
        without a round trip (the worker calls this before the agent when prefetch is on,
        with the first page its claim brought)."""
        done: dict[str, Execution] = {}
        page, after = first_page, None
        while True:  # one list_completed read per _PREFETCH_PAGE keys (forks included)
            if page is None:
                page = await self.client.list_completed(self.channel_id, after, _PREFETCH_PAGE)
            done.update((e.key_name, e) for e in page)
            if len(page) < _PREFETCH_PAGE:
                break
            page, after = None, page[-1].key_name
        self._completed = done

    async def sleep(self, duration: timedelta | float, *, key: str | None = None) -> None:
        """Sleep durably: returns at once when the (first recorded) wake time has passed,
        else parks the run until then (the agent unwinds; it resumes from the top)."""
        sleep_key = self._key(key, "sleep")
        await self._one_at_a_time(sleep_key, lambda: self.client.sleep_run(
            self.channel_id, self.claim_token, sleep_key, duration), ("sleeping", "cancelled"))

    async def wait_for_event(
        self, event_type: str, *, timeout: timedelta | float, key: str | None = None
    ) -> WaitResult:
        """Wait durably for an event of ``event_type`` recorded in the run's channel (e.g.
        ``actae event send <channel> approval --payload '{"approved": true}'``). Returns the
        received event (``.payload``) or, once the deadline passed, a result with
        ``.timed_out``; otherwise parks the run until one of the two happens."""
        wait_key = self._key(key, f"wait:{event_type}", _KEY_BYTES)
        return await self._one_at_a_time(wait_key, lambda: self.client.wait_for_event(
            self.channel_id, self.claim_token, wait_key, event_type, timeout),
            ("waiting", "cancelled"))

    async def _one_at_a_time(self, key: str, send: Callable[[], Awaitable[P]],
                             parks: tuple[str, ...]) -> P:
        """Send a sleep or wait (``send``; an outcome in ``parks`` parks the run: _Parked)
        unless another is in progress. It yields once first, so when a second begins beside
        it in the same loop round (a TaskGroup, gather) neither is sent: ConcurrentWait for
        both. A second begun once this one was sent waits for its outcome: parked, the
        second unwinds too (the run resumes from the top, where the two meet again); else
        it raises ConcurrentWait, for the run to fail, not to go on having missed events."""
        if self._parking is not None:
            first, outcome = self._parking
            self._clashed = first
            parked = await asyncio.shield(outcome)
            if parked is not None:
                raise _Parked(parked)
            raise ConcurrentWait(
                f"run {self.channel_id}: {key} began while {first} was in progress;"
                " a run sleeps or waits for one thing at a time (wait for one event type,"
                " with a timeout: docs/runs.md)")
        outcome: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._parking = (key, outcome)
        parked: str | None = None
        try:
            await asyncio.sleep(0)
            if self._clashed == key:
                raise ConcurrentWait(
                    f"run {self.channel_id}: another sleep or wait began beside {key};"
                    " a run sleeps or waits for one thing at a time (docs/runs.md)")
            done = await send()
            if done.outcome in parks:
                parked = done.outcome
                raise _Parked(parked)
            return done
        finally:
            self._parking = None
            if self._clashed == key:
                self._clashed = None
            outcome.set_result(parked)

    async def transition(
        self, event_type: str, payload: Any = None, state: Any = None, *,
        key: str | None = None,
    ) -> int:
        """Record state on the run's channel (``transition_state``) exactly once per key:
        re-executions replay it (operation id ``run:<key>``). Returns the state version."""
        operation_id = "run:" + self._key(key, f"transition:{event_type}", _KEY_BYTES - 4)
        await self._fenced()
        for _ in range(8):
            channel = await self.client.get_channel(self.channel_id)
            try:
                done = await self.client.transition_state(
                    self.channel_id, event_type, payload, state, channel.state_version,
                    operation_id=operation_id)
                return done.version
            except VersionConflict:
                continue  # someone else transitioned in between; read the version again
        raise VersionConflict(f"channel {self.channel_id} kept changing", {})

    async def record_event(self, event_type: str, payload: Any = None, *,
                           key: str | None = None) -> int:
        """Append an event to the run's channel exactly once per key; returns its cursor."""
        operation_id = "run:" + self._key(key, f"event:{event_type}", _KEY_BYTES - 4)
        await self._fenced()
        done = await self.client.record_event(self.channel_id, event_type, payload,
                                              operation_id)
        return done.cursor


def _unreached_kinds(exc: BaseException) -> set[str | None]:
    """errors.unreached of each error of exc (a group's, nested groups looked into)."""
    if isinstance(exc, BaseExceptionGroup):
        group = cast(BaseExceptionGroup[BaseException], exc)
        kinds: set[str | None] = set()
        for inner in group.exceptions:
            kinds |= _unreached_kinds(inner)
        return kinds
    return {unreached(exc)}


def _retryable(exc: BaseException) -> bool:
    """Whether running the agent again could end otherwise: not after a PermanentError, nor
    after a tool call's own final outcome (ToolFailed: failed for good, or Cancelled by an
    operator), which every re-run replays again. A group of errors (asyncio.TaskGroup) is
    retried when one of its errors would be."""
    if isinstance(exc, BaseExceptionGroup):
        group = cast(BaseExceptionGroup[BaseException], exc)
        return any(_retryable(inner) for inner in group.exceptions)
    return not isinstance(exc, PermanentError | ToolFailed)


def _canonical(value: Any) -> Any:
    return json.loads(_json.dumps(value))


def _typed(value: Any) -> Any:
    """A JSON value to compare by that tells apart what the server's fingerprint tells apart
    and Python's == does not: true from 1, 1 from 1.0 (key order still does not count)."""
    if isinstance(value, dict):
        items = cast(dict[str, Any], value).items()
        return ("object", tuple(sorted((k, _typed(v)) for k, v in items)))
    if isinstance(value, list):
        return ("array", tuple(_typed(v) for v in cast(list[Any], value)))
    return (type(value).__name__, value)


def _same_call(done: Execution, tool_name: str, params: dict[str, Any],
               dedup_fields: Sequence[str] | None) -> bool:
    """Whether a prefetched completion is this call's: same tool and dedup_fields, and the
    same params (the server replays only those; a call that differs goes to the server,
    which answers it: a replay by fingerprint, or AC409)."""
    fields = None if dedup_fields is None else sorted(set(dedup_fields))
    try:
        same_params = _typed(_canonical(params)) == _typed(done.params)
    except (TypeError, ValueError):
        return False
    return done.tool_name == tool_name and done.dedup_fields == fields and same_params


def _check_text(value: object, argument: str) -> None:
    """Refuse what claim_run refuses as a queue or worker name: not 1..256 bytes of text."""
    try:
        size = len(value.encode()) if isinstance(value, str) and "\0" not in value else 0
    except UnicodeEncodeError:  # a lone surrogate: no text PostgreSQL can take
        size = 0
    if not 1 <= size <= 256:
        raise ValueError(f"{argument} must be 1 to 256 bytes of text, got {value!r}")


def _check_settings(queue: object, name: object, concurrency: object, lease_seconds: object,
                    poll_interval: object, shutdown_grace: object) -> None:
    """Refuse settings a worker cannot work with (ValueError naming the argument): with no
    free slot (concurrency below 1) it would never claim, claim_run refuses a queue or worker
    name outside 1..256 bytes and a lease outside 1..86400 seconds (every claim would fail
    and be retried, forever; a whole float is a lease, as for the integrations), and a grace
    that is no number of seconds fails the shutdown. A name of None (or empty) is the
    default, host:pid."""
    _check_text(queue, "queue")
    if name is not None and name != "":
        _check_text(name, "name")
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
        raise ValueError(f"concurrency must be an integer of at least 1, got {concurrency!r}")
    try:
        calls.check_lease_seconds(lease_seconds)  # a whole number (60.0 from a setting too)
    except InvalidInput as exc:
        raise ValueError(str(exc)) from None
    if (isinstance(poll_interval, bool) or not isinstance(poll_interval, int | float)
            or not 0 < poll_interval < math.inf):
        raise ValueError(
            f"poll_interval must be a positive finite number of seconds, got {poll_interval!r}")
    if (isinstance(shutdown_grace, bool) or not isinstance(shutdown_grace, int | float)
            or not 0 <= shutdown_grace < math.inf):
        raise ValueError("shutdown_grace must be a finite number of seconds, at least 0, got "
                         f"{shutdown_grace!r}")


def _sigint_unhandled() -> bool:
    """Whether a Ctrl-C would raise KeyboardInterrupt where this code runs: in the main
    thread (the only one Python delivers it to), with SIGINT's default handler (neither the
    worker's signal handlers nor asyncio.run's are installed)."""
    return (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler)


_LEFT_BEHIND = "actae-left-behind:"


def _quiet_left_behind(loop: asyncio.AbstractEventLoop, tasks: list[asyncio.Task[Any]]) -> None:
    """The tasks a closing run() leaves behind (an agent that would not stop, and what
    awaits it) were reported once, by the worker's warning: asyncio does not report them
    again ("Task was destroyed but it is pending!") when they are collected. They are
    marked by name, so the loop keeps no reference to them."""
    if not tasks:
        return
    for task in tasks:
        task.set_name(_LEFT_BEHIND + task.get_name())
    previous = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        task = context.get("task")
        if (isinstance(task, asyncio.Task) and task.get_name().startswith(_LEFT_BEHIND)
                and str(context.get("message", "")).startswith("Task was destroyed")):
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)


class Worker:
    """Claims due runs of one queue and executes their agents (see the module docstring)."""

    def __init__(
        self,
        client: ActaeClient | str,
        queue: str = "default",
        concurrency: int = 8,
        *,
        name: str | None = None,
        lease_seconds: int = 60,
        poll_interval: float = 1.0,
        shutdown_grace: float = 30.0,
        prefetch: bool = True,
    ) -> None:
        _check_settings(queue, name, concurrency, lease_seconds, poll_interval,
                        shutdown_grace)
        if isinstance(client, str):
            self._dsn: str | None = client
            self.client = ActaeClient(client, max_size=concurrency + 2)
        else:
            self._dsn = None
            self.client = client
        self.queue = queue
        self.concurrency = concurrency
        self.name = name or f"{socket.gethostname()}:{os.getpid()}"
        self.lease_seconds = int(lease_seconds)  # checked above: a whole number
        self.poll_interval = poll_interval
        self.shutdown_grace = shutdown_grace
        self.prefetch = prefetch
        self.agents: dict[str, Agent] = {}
        self._stopping = asyncio.Event()
        self._wake = asyncio.Event()
        self._hurry = asyncio.Event()  # stopped again while stopping: no more grace
        self._signals: dict[int, float] = {}  # signal -> when it first asked this run to stop
        self._runs = 0  # run_async calls: a client made from the DSN serves one each
        self._tasks: set[asyncio.Task[None]] = set()
        self._agent_tasks: set[asyncio.Task[Any]] = set()  # agents still running
        self._cut = False  # shutting down, past shutdown_grace: no agent starts any more
        self._loop: asyncio.AbstractEventLoop | None = None
        self._running = False  # inside run_async (one at a time per Worker)
        #: runs this worker completed, failed (or ended as cancelled), parked, abandoned
        #: (stopped at shutdown or taken over), and writes the fences rejected (LeaseLost).
        self.stats = {"completed": 0, "failed": 0, "parked": 0, "abandoned": 0,
                      "lease_lost": 0}

    def agent(self, name: str) -> Callable[[A], A]:
        """Register ``async def fn(run: Run)`` as the agent ``name``."""

        def register(fn: A) -> A:
            if not is_async(fn):
                raise TypeError(f"agent {name} must be an async function")
            if not 1 <= len(name.encode()) <= 256:
                # As start_run's agent: claim_run refuses the whole list with a name it
                # could never match, and the worker would then claim nothing at all.
                raise ValueError(f"agent name must be 1 to 256 bytes of text, got {name!r}")
            self.agents[name] = fn
            return fn

        return register

    def check(self) -> None:
        """ValueError naming the setting when this worker cannot run as configured: no
        agent registered, or a queue, concurrency, lease, poll interval or grace out of range
        (run_async checks too; the attributes may have been changed since construction)."""
        if not self.agents:
            raise ValueError("register at least one agent with @worker.agent(name)")
        _check_settings(self.queue, self.name, self.concurrency, self.lease_seconds,
                        self.poll_interval, self.shutdown_grace)

    def stop(self) -> None:
        """Stop claiming; running agents get ``shutdown_grace`` seconds to finish. Safe to
        call from any thread. It ends the current (or next) run_async only: once that has
        returned, the Worker can run again. Called again while the worker is stopping, it
        cuts the grace short: the agents still running are cancelled at once (runs
        recording their outcome get a few seconds more)."""
        loop = self._loop
        if loop is not None and loop.is_running():
            loop.call_soon_threadsafe(self._stop_now)
        else:
            self._stop_now()

    def _stop_now(self) -> None:
        if self._stopping.is_set():
            self._hurry.set()
        self._stopping.set()
        self._wake.set()

    def _signalled(self, signum: int) -> None:
        """SIGTERM/SIGINT: stop; the same signal again, a second or more later, ends the
        grace (stop() twice). Signals that come together are one stop: a Ctrl-C reaches the
        terminal's whole process group, so a supervisor or wrapper in it that forwards the
        SIGINT, or answers it with a SIGTERM, sends a second one at once."""
        name = signal.Signals(signum).name
        now = time.monotonic()
        first = self._signals.setdefault(signum, now)
        if now - first >= _AGAIN_AFTER:
            log.warning("%s again: stopping the running agents now", name)
            self._stop_now()
        elif not self._stopping.is_set():
            log.warning("%s: stopping; running agents get %s s to finish (%s again, a second "
                        "or more later, stops them now)", name, self.shutdown_grace, name)
            self._stop_now()

    def run(self, *, install_signal_handlers: bool = True,
            ready: Callable[[], object] | None = None) -> None:
        """Blocking entry point: run until SIGTERM/SIGINT (or stop()). As asyncio.run (the
        same loop set-up and Ctrl-C handling), but a task that ignores its cancellation (an
        agent left behind at shutdown) gets _CANCEL_GRACE seconds, not for ever, before the
        loop is closed. ready, when given, is called once the worker handles its signals
        and has its connections, before it claims (actae worker prints its first line)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise RuntimeError("Worker.run() cannot be called from a running event loop: "
                               "await worker.run_async() there")
        runner = asyncio.Runner()  # not closed by itself: Runner.close waits for every task
        try:
            runner.run(self.run_async(install_signal_handlers=install_signal_handlers,
                                      ready=ready))
        finally:
            loop = runner.get_loop()
            try:
                if tasks := asyncio.all_tasks(loop):
                    for task in tasks:
                        task.cancel()
                    loop.run_until_complete(asyncio.wait(tasks, timeout=_CANCEL_GRACE))
                    for task in tasks:  # what they raised was logged where it mattered
                        if task.done() and not task.cancelled():
                            task.exception()
                    _quiet_left_behind(loop, [task for task in tasks if not task.done()])
                loop.run_until_complete(loop.shutdown_asyncgens())
                loop.run_until_complete(loop.shutdown_default_executor())
            finally:
                asyncio.set_event_loop(None)
                loop.close()

    async def run_async(self, *, install_signal_handlers: bool = False,
                        until_idle: bool = False,
                        ready: Callable[[], object] | None = None) -> None:
        """Claim and execute runs until stop() (or, with until_idle, until nothing is due
        and nothing is running). ready: as for run()."""
        self.check()  # again here: the attributes may have changed (actae worker --queue)
        if self._running:
            raise RuntimeError("this Worker is already running: run_async runs once at a time")
        self._running = True
        try:
            await self._serve(install_signal_handlers, until_idle, ready)
        finally:
            # Ready to run again (stop() ends this run_async only): fresh stop state, and
            # fresh events, which the next run_async may wait on in another event loop. A
            # stop() made before run_async starts is still honoured: it ends that run.
            self._stopping = asyncio.Event()
            self._wake = asyncio.Event()
            self._hurry = asyncio.Event()
            self._signals = {}
            self._cut = False
            self._loop = None
            self._running = False

    async def _serve(self, install_signal_handlers: bool, until_idle: bool,
                     ready: Callable[[], object] | None) -> None:
        loop = asyncio.get_running_loop()
        self._loop = loop
        if install_signal_handlers and threading.current_thread() is not threading.main_thread():
            raise RuntimeError("signal handlers are installed from the main thread only: run "
                               "the worker there, or pass install_signal_handlers=False")
        if self._dsn is not None and self._runs:
            # A closed pool cannot be opened again: each run after the first gets its own.
            self.client = ActaeClient(self._dsn, max_size=self.concurrency + 2)
        self._runs += 1
        owns_client = self._dsn is not None or self.client.pool.closed
        listener: asyncio.Task[None] | None = None
        if install_signal_handlers:
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, self._signalled, int(sig))
        try:
            if owns_client:
                await self.client.open()
            listener = asyncio.create_task(self._listen())
            if ready is not None:
                ready()
            await self._claim_loop(until_idle)
            await self._drain()
        finally:
            if listener is not None:
                listener.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await listener
            try:
                if owns_client:
                    # Before the handlers go: closing waits (up to 2 s) for the leases of
                    # tools cut at shutdown to be given back, and a signal meanwhile is
                    # still this worker's, not a kill or a KeyboardInterrupt traceback.
                    await self.client.close()
            finally:
                if install_signal_handlers:
                    for sig in (signal.SIGTERM, signal.SIGINT):
                        loop.remove_signal_handler(sig)

    async def _claim_loop(self, until_idle: bool) -> None:
        agents = sorted(self.agents)
        while not self._stopping.is_set():
            self._wake.clear()
            claimed_any = False
            while len(self._tasks) < self.concurrency and not self._stopping.is_set():
                free = min(self.concurrency - len(self._tasks), _MAX_CLAIM)
                sent = time.monotonic()
                try:
                    claimed = await self._claim(agents, free)
                except (ActaeError, psycopg.Error, OSError) as exc:
                    log.warning("claim_run failed (%s); retrying", with_hint(exc))
                    break
                claimed_any = claimed_any or bool(claimed)
                self._spawn(claimed, sent)
                if len(claimed) < free:
                    break  # nothing more is due
            if until_idle and not claimed_any and not self._tasks:
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.poll_interval)

    async def _claim(
        self, agents: list[str], free: int
    ) -> list[tuple[RunRecord, list[Execution] | None]]:
        """Up to ``free`` due runs, oldest first. With prefetch, one statement claims them
        all (one round trip, one commit) and brings each run's first page of its channel's
        completed executions; without, claim_runs alone."""
        if not self.prefetch:
            records = await self.client.run(replace(calls.claim_runs(
                self.queue, self.name, free, agents, self.lease_seconds), wait=BEAT_WAIT))
            return [(record, None) for record in records]
        try:
            claimed = await self.client.run(replace(calls.claim_runs_with_completed(
                self.queue, self.name, free, agents, self.lease_seconds, _PREFETCH_PAGE),
                wait=BEAT_WAIT))
        except psycopg.Error as exc:
            if (exc.sqlstate or "")[:2] not in _TOO_LARGE:
                raise
            # A first page too large for the statement (one jsonb value holds at most 256 MB:
            # a run's completed results can pass that) undid every claim of the statement,
            # and would again at each poll, the run staying the oldest due: claim without
            # the prefix, which each run then reads in list_completed pages.
            log.warning("claim with prefetch failed (%s); claiming without it", exc)
            records = await self.client.claim_runs(self.queue, self.name, free, agents,
                                                   self.lease_seconds)
            return [(record, None) for record in records]
        return [(c.run, c.completed) for c in claimed]

    def _spawn(self, claimed: list[tuple[RunRecord, list[Execution] | None]],
               sent: float) -> None:
        """Start the runs claimed by a statement sent at monotonic time ``sent`` (their
        leases began after it)."""
        for record, completed in claimed:
            task = asyncio.create_task(self._execute(record, completed, sent))
            self._tasks.add(task)
            task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        self._wake.set()

    async def _drain(self) -> None:
        # Until no task is left: a run completing during the grace period may have handed
        # its slot to a run it claimed (_record), which then runs (or is stopped) too.
        # stop() again while stopping (a second SIGTERM or Ctrl-C) ends the grace at once.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.shutdown_grace
        hurry = asyncio.ensure_future(self._hurry.wait())
        left_behind: set[asyncio.Task[None]] = set()
        try:
            while running := {t for t in self._tasks if not t.done()} - left_behind:
                if loop.time() < deadline and not hurry.done():
                    await asyncio.wait({*running, hurry}, timeout=deadline - loop.time(),
                                       return_when=asyncio.FIRST_COMPLETED)
                    continue
                deadline = min(deadline, loop.time())
                left_behind |= await self._cut_off(running, deadline)
        finally:
            hurry.cancel()

    async def _cut_off(self, running: set[asyncio.Task[None]],
                       deadline: float) -> set[asyncio.Task[None]]:
        """Stop the runs still running past the grace period; the tasks that would not stop.

        Their agents are cancelled and record nothing, so their leases lapse and another
        worker reclaims the runs. A run whose agent has ended is recording its outcome (one
        statement, which may already have claimed the next run): it gets _RECORD_GRACE
        seconds more, so a completion is not cut off between its commit and its reply. A
        run claimed that way is not started (_execute): its lease lapses like the others'.
        An agent that catches CancelledError and goes on would hold the shutdown for ever:
        it gets _CANCEL_GRACE seconds more, then is left behind (run() does not wait for
        it either; its run's lease lapses)."""
        loop = asyncio.get_running_loop()
        self._cut = True
        for agent in list(self._agent_tasks):
            agent.cancel()
        left = deadline + _RECORD_GRACE - loop.time()
        _, pending = await asyncio.wait(running, timeout=max(0.0, left))
        for task in pending:
            task.cancel()
        if not pending:
            return set()
        _, stuck = await asyncio.wait(pending, timeout=_CANCEL_GRACE)
        if stuck:
            log.warning("%d agent task(s) did not stop when cancelled; leaving them behind",
                        len(stuck))
            self.stats["abandoned"] += len(stuck)
            self._tasks -= stuck  # their slots are free for a later run_async
        return stuck

    async def _listen(self) -> None:
        """LISTEN on the queue's topic; every notification wakes the claim loop."""
        delay = 0.1
        while True:
            try:
                conninfo, kwargs = self._connect_args()
                kwargs["autocommit"] = True
                async with await psycopg.AsyncConnection.connect(conninfo, **kwargs) as conn:
                    topic = await self.client.queue_topic(self.queue, conn=conn)
                    await conn.execute(sql.SQL("listen {}").format(sql.Identifier(topic)))
                    delay = 0.1
                    self._wake.set()  # catch up on anything announced while not listening
                    async for _ in conn.notifies():
                        self._wake.set()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - keep listening across server restarts
                log.debug("queue listener reconnecting after %s", exc)
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.poll_interval)

    async def _execute(self, record: RunRecord, completed: list[Execution] | None,
                       sent: float) -> None:
        if self._cut:  # claimed by a completion that ended past the grace period
            self.stats["abandoned"] += 1
            return
        run = Run(self, record, sent)
        agent_task = asyncio.create_task(self._call_agent(run, completed))
        run.agent_task = agent_task
        self._agent_tasks.add(agent_task)
        agent_task.add_done_callback(self._agent_tasks.discard)
        beat = asyncio.create_task(self._heartbeat(run, agent_task))
        try:
            # Cancelled here only at shutdown (after the grace period): the agent task is
            # cancelled with us and nothing is recorded, so the lease lapses.
            outcome = await agent_task
        finally:
            beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beat
        await self._record(run, outcome)

    async def _call_agent(self, run: Run, completed: list[Execution] | None) -> tuple[str, Any]:
        try:
            if self.prefetch:
                await run.load_completed(completed)
            return ("completed", await self.agents[run.agent](run))
        except _Parked:
            return ("parked", None)
        except BaseExceptionGroup as group:
            # Structured concurrency in the agent (asyncio.TaskGroup): a step that parked the
            # run parks it whatever its siblings raised (the run's token is dead); any other
            # group is the agent's failure, an ExceptionGroup as any Exception, a
            # BaseExceptionGroup (SystemExit, KeyboardInterrupt inside) too unless the worker
            # is stopping this agent.
            if group.subgroup(_Parked) is not None:
                return ("parked", None)
            task = asyncio.current_task()
            if not isinstance(group, Exception) and task is not None and task.cancelling():
                return ("stopped", None)
            if isinstance(group, Exception) and await self._unreached(group):
                return ("unreached", group)
            return ("failed", group)
        except asyncio.CancelledError as exc:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                # This task was cancelled (heartbeat: cancel requested or lease lost;
                # shutdown past the grace period): the worker stopped the agent.
                return ("stopped", None)
            # Raised by the agent's own code (e.g. it awaited a task someone cancelled):
            # an ordinary failure, retried and counted toward max_attempts.
            return ("failed", exc)
        except LeaseLost as exc:
            return ("lost", exc)
        except Exception as exc:  # noqa: BLE001 - recorded with fail_run
            if await self._unreached(exc):
                return ("unreached", exc)
            return ("failed", exc)
        except (SystemExit, KeyboardInterrupt) as exc:
            # Raised by the agent's code (sys.exit in a library, a raised KeyboardInterrupt):
            # the run's failure like any other. Re-raised, it would end the event loop and
            # the whole worker, abandoning every run it holds and recording nothing. The
            # worker's own SIGINT/SIGTERM go through stop(), never through an agent; only
            # while SIGINT has Python's default handler (no handler of the worker or of
            # asyncio.run) can a real Ctrl-C arrive here: then it is the operator's, so it
            # stops the worker and, like every cut of a shutdown, records nothing (the
            # lease lapses and another worker resumes the run).
            if isinstance(exc, KeyboardInterrupt) and _sigint_unhandled():
                self.stop()
                return ("stopped", None)
            return ("failed", exc)

    async def _heartbeat(self, run: Run, agent_task: asyncio.Task[Any]) -> None:
        """Renew the run's lease every third of it. A heartbeat that fails (the database out
        of reach) is tried again every BEAT_RETRY seconds, so the lease is renewed within
        seconds of the server's return, not a third of a lease later: an outage shorter than
        two thirds of the lease less those seconds costs the run nothing."""
        interval = self.lease_seconds / 3
        failing = False
        while True:
            await asyncio.sleep(BEAT_RETRY if failing else interval)
            try:
                await run.renew()
            except LeaseLost:
                # Taken over, or the run is over or gone (Run.renew): the agent is stopped
                # and records nothing.
                self.stats["lease_lost"] += 1
                return
            except (ActaeError, psycopg.Error, OSError) as exc:
                if not failing:
                    log.warning("heartbeat of run %s failed (%s); trying again every %s s",
                                run.channel_id, exc, BEAT_RETRY)
                failing = True
                continue
            if failing:
                log.warning("heartbeat of run %s renewed its lease again", run.channel_id)
                failing = False
            if run.cancel_requested:
                return

    async def _complete(self, run: Run, value: Any) -> None:
        """complete_run; with prefetch, unless stopping, the same statement (one commit)
        claims the next due run, which takes this run's slot at once. When that statement
        fails for any reason but a lost lease, the run is completed on its own: an error of
        the claim must not cost the completion (the statement wrote nothing)."""
        # Not once run_async has returned: an agent left behind at its shutdown that ends
        # later must not start runs on a worker that is no longer running.
        if self.prefetch and self._running and not self._stopping.is_set():
            sent = time.monotonic()
            try:
                _, claimed = await self.client.complete_run_and_claim(
                    run.channel_id, run.claim_token, value, self.queue, self.name, 1,
                    sorted(self.agents), self.lease_seconds, _PREFETCH_PAGE)
            except (LeaseLost, IdempotencyConflict, NotFound):
                raise  # taken over, or over or gone: completing it alone would fail too
            except (ActaeError, psycopg.Error, OSError) as exc:
                log.warning("completing run %s with the next claim failed (%s); completing"
                            " it alone", run.channel_id, exc)
            else:
                self._spawn([(c.run, c.completed) for c in claimed], sent)
                return
        await self.client.complete_run(run.channel_id, run.claim_token, value)

    async def _fail(self, run: Run, error: str, fallback: str, *, retryable: bool) -> None:
        """fail_run with ``error`` made storable (actae.plans.tools.storable);
        should the server still refuse that text (InvalidInput), with ``fallback``, a fixed
        text. Either way the failure is recorded and counts toward max_attempts: left
        unrecorded, the run would be re-run after each lease lapse, forever."""
        try:
            await self.client.fail_run(run.channel_id, run.claim_token,
                                       storable(error), retryable=retryable)
        except InvalidInput as exc:
            log.warning("run %s: its error could not be recorded (%s); recording %r instead",
                        run.channel_id, exc, fallback)
            await self.client.fail_run(run.channel_id, run.claim_token, fallback,
                                       retryable=retryable)

    async def _unreached(self, error: BaseException) -> bool:
        """Whether the agent was stopped by Actae's own statements failing to reach the
        database (every error of a group): a connection the server ended, refused or lost
        (errors.unreached); or no pool connection in time, when a connection of its own
        cannot be had either (the database is down, not the pool's connections all busy:
        then it is the agent's failure, as a closed client or a connection of its own)."""
        kinds = _unreached_kinds(error)
        if None in kinds:
            return False
        if "server" in kinds:
            return True
        try:
            conninfo, kwargs = self._connect_args()
        except TypeError:  # a pool whose conninfo is a callable: not asked, not counted so
            return False
        kwargs["connect_timeout"] = int(BEAT_WAIT)
        try:
            await (await psycopg.AsyncConnection.connect(conninfo, **kwargs)).close()
        except psycopg.Error:
            return True
        return False

    def _connect_args(self) -> tuple[str, Any]:
        """How to open a connection of the worker's own (the listener's, a probe's): its
        DSN, or its client's pool's conninfo and connection arguments (kwargs)."""
        if self._dsn:
            return self._dsn, pool_kwargs()  # as the pool of a client given the DSN
        pool = self.client.pool
        conninfo: Any = pool.conninfo
        if not isinstance(conninfo, str):  # psycopg_pool also allows a callable
            raise TypeError("the client's pool has no conninfo string to connect with")
        kwargs: Any = pool.kwargs() if callable(pool.kwargs) else pool.kwargs
        return conninfo, dict(kwargs or {})

    def _leave(self, run: Run, error: BaseException) -> None:
        """An agent stopped by one of Actae's own statements failing to reach the database
        (a lost connection, a restart, a failover; errors.unreached): not the agent's
        failure, so nothing is recorded and it does not count toward max_attempts. The run
        is left as after a crash: its lease lapses (its heartbeats have stopped) and the next
        claim resumes it, counted as a lost worker (docs/runs.md, "Lost workers"). The lease
        is not given back sooner: a sync tool of the agent may still be running in its thread,
        and a resumed run would claim its call again once the call's own lease lapsed."""
        log.warning("run %s: the database could not be reached during a step (%s); nothing"
                    " recorded, the run is resumed by the next claim once its lease lapses",
                    run.channel_id, describe(error))
        self.stats["abandoned"] += 1

    async def _record(self, run: Run, outcome: tuple[str, Any]) -> None:
        kind, value = outcome
        if kind == "parked":
            self.stats["parked"] += 1
            return
        if kind == "unreached":
            self._leave(run, value)
            return
        try:
            if kind == "completed":
                try:
                    await self._complete(run, value)
                except (InvalidInput, TypeError, ValueError) as exc:
                    # A result the run cannot store (over 1 MiB of JSON, or not JSON at
                    # all): fail the run for good. Left unrecorded, its lease would lapse
                    # and it would run again and again, past max_attempts.
                    await self._fail(
                        run, f"the agent's result could not be recorded: {exc}",
                        f"the agent's result could not be recorded ({type(exc).__qualname__})",
                        retryable=False)
                    self.stats["failed"] += 1
                    return
                self.stats["completed"] += 1
            elif kind == "stopped" and run.cancel_requested:
                await self.client.fail_run(run.channel_id, run.claim_token, "cancelled",
                                           retryable=False)
                self.stats["failed"] += 1
            elif kind == "failed":
                await self._fail(run, describe(value),
                                 f"{type(value).__qualname__} (its message could not be"
                                 " recorded)",
                                 retryable=_retryable(value))
                self.stats["failed"] += 1
            else:
                # Taken over (a fenced write was LeaseLost) or stopped at shutdown: the run's
                # next owner decides; nothing is recorded here.
                self.stats["abandoned"] += 1
                if kind == "lost":
                    self.stats["lease_lost"] += 1
        except (LeaseLost, IdempotencyConflict, NotFound) as exc:
            # Too late: another worker owns the run now, or ended it (e.g. as cancelled,
            # while this one was stalled past its lease), or it is gone.
            log.info("run %s: its end was not recorded (%s)", run.channel_id, exc)
            self.stats["abandoned"] += 1
            self.stats["lease_lost"] += 1
        except (ActaeError, psycopg.Error, OSError) as exc:
            log.warning("recording the end of run %s failed (%s)", run.channel_id, exc)
