"""run_tool, run_tools and compensate: the decision plan for calling a side-effecting tool.

``await client.run_tool(charge, channel_id=..., key_name=..., tool_name=..., params=...)``
claims the execution ``(channel_id, key_name)`` and then, by claim outcome:

* ``replayed``: returns the stored result; the tool is not called.
* ``claimed`` / ``reclaimed``: calls ``tool(ctx)`` while heartbeating every third of the
  lease, then records the result (``complete_execution``) and returns it. An exception is
  recorded with ``fail_execution`` and re-raised: retryable unless it is a
  :class:`~actae.errors.PermanentError`. With ``reclaimed`` and ``ambiguous`` (the previous
  attempt ended with no recorded outcome) and a ``reconcile`` callable, ``reconcile(ctx)``
  asks the provider first; a non-None answer is recorded as the result and the tool is not
  called.
* ``in_progress``: another worker owns a live lease; waits with bounded exponential backoff
  and claims again, until the owner completes (``replayed``), fails, or its lease lapses
  (``reclaimed``). ``wait_timeout`` bounds the total wait (then
  :class:`~actae.errors.ToolInProgress`).
* ``failed``: raises :class:`~actae.errors.ToolFailed` with the stored error, or
  :class:`~actae.errors.Cancelled` when the execution's status is ``cancelled``.

A heartbeat that reports ``cancel_requested`` stops the tool (cancels the asyncio task; a
sync tool in its worker thread is abandoned and ``ctx.should_stop()`` turns true) and
records ``fail_execution(error="cancelled: <reason>")``, which the database stores as
status ``cancelled``; run_tool raises :class:`~actae.errors.Cancelled`. A heartbeat that
finds the lease taken over (``LeaseLost``) stops the tool and raises.

Nothing is recorded when run_tool cannot know the outcome: a ``reconcile`` that raises, a
caller cancelled while its tool runs (the tool is cancelled too), a KeyboardInterrupt. The
lease then lapses and the next claim is ``reclaimed`` with ``ambiguous = true``, exactly as
after a crash. The value returned is the stored JSON form of the result (a tuple comes back
as a list), the same on the first call and on every replay.

This module only decides: it yields database calls and local steps (``Start`` the tool,
``Wait`` for it up to a timeout, ``Stop`` it, ``Attempt`` a call and get its error back
instead of raising it), and both clients execute those steps through ``actae._runtime``.
Sync tools run in a worker thread under both clients; async tools run as asyncio tasks
(under the sync client, in a worker thread's own event loop).

Parallel tool calls: ``client.run_tools([ToolCall(tool, key_name, tool_name, params), ...],
channel_id=...)`` is run_tool for each element with one ``claim_executions`` for all, the
owned elements' tools running concurrently, and one ``complete_executions`` for every
success: 2 round trips for N new calls. See :func:`run_tools` for each outcome and errors.

Compensation: ``client.compensate(refund, channel_id=..., key_name=<original key>, ...)``
runs the compensating tool as its own durable execution under
:func:`~actae.context.compensation_key` (``"compensate:" + key_name``); ``ctx.original`` is
the completed original execution (with its result). It returns None without recording
anything when the original never completed, and raises ToolInProgress while the original is
still claimed or in progress (settle it first: run it again with run_tool).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from time import monotonic
from typing import Any, NamedTuple, NoReturn, cast

import psycopg
from psycopg_pool import PoolClosed

from actae import calls
from actae.context import Tool, ToolContext, compensation_key, idempotency_key
from actae.errors import (
    ActaeError,
    Cancelled,
    InvalidInput,
    NotFound,
    PermanentError,
    ToolFailed,
    ToolInProgress,
)
from actae.models import Claim, Execution
from actae.plans import LocalStep, Plan, Sleep

FIRST_BACKOFF = 0.05
MAX_BACKOFF = 1.0
MAX_ERROR_CHARS = 16000


@dataclass(frozen=True)
class Returned:
    """The tool returned ``value``."""

    value: Any


@dataclass(frozen=True)
class Raised:
    """The tool raised ``error``."""

    error: BaseException


Outcome = Returned | Raised


@dataclass(frozen=True)
class Start(LocalStep):
    """Start ``fn(ctx)``; the reply is a handle for Wait and Stop."""

    fn: Tool
    ctx: ToolContext


@dataclass(frozen=True)
class Wait(LocalStep):
    """Wait up to timeout seconds; the reply is the tool's Outcome, or None while it runs."""

    handle: Any
    timeout: float


@dataclass(frozen=True)
class Stop(LocalStep):
    """Stop the tool (cancel its task; a thread is abandoned and ``ctx.should_stop()`` turns
    true). The reply is its Outcome when it finished anyway, else None."""

    handle: Any
    ctx: ToolContext


@dataclass(frozen=True)
class Attempt(LocalStep):
    """Run a call; the reply is its result, or the Exception it raised (not raised)."""

    call: calls.Call[Any]


#: how long an outcome's record is sent again while the connections it goes through turn out
#: broken (a restart, a failover, a terminated backend: the pool hands out each broken one
#: once before it opens new ones)
RECORD_RETRY_SECONDS = 10.0
#: the most seconds a heartbeat waits for a pool connection, and the seconds between
#: heartbeats while they fail: a lease is renewed within seconds of the database's return
#: from an outage, not a third of a lease later (after the pool's 30 s wait), so an outage
#: shorter than two thirds of the lease less those seconds lets no other worker take the
#: call over (docs/runs.md, "The database out of reach")
BEAT_WAIT = 5.0
BEAT_RETRY = 1.0


def _unanswered(beat: object) -> bool:
    """Whether a heartbeat got no answer of the ledger's: any error but an ActaeError (a
    lost lease, the execution gone), so the tool runs on and the heartbeat is sent again.
    Broader than _lost_connection, which decides whether a record is sent again."""
    return isinstance(beat, Exception) and not isinstance(beat, ActaeError)


def _beat(ctx: ToolContext) -> calls.Call[Execution]:
    return replace(calls.heartbeat_execution(ctx.execution_id, ctx.claim_token,
                                             channel_id=ctx.channel_id), wait=BEAT_WAIT)


def _lost_connection(reply: object) -> bool:
    """Whether a call failed for its connection, not for what the database said of it (nor
    for a pool that was closed: psycopg_pool's PoolClosed is an OperationalError too)."""
    return (isinstance(reply, psycopg.OperationalError | psycopg.InterfaceError)
            and not isinstance(reply, PoolClosed))


def _recorded(call: calls.Call[Any]) -> Plan[tuple[Any, bool]]:
    """Attempt an outcome's record (a completion or a failure), and again while the
    connection broke under it, for up to RECORD_RETRY_SECONDS in all (each attempt waits for
    a connection only as long as is left): the same token with the same outcome again is a
    no-op success when the first was recorded after all (SPEC section 2), so a dropped
    connection does not lose what the tool did (its next claim would run it again). The
    reply (the call's result, or the Exception it last raised) and whether it was sent
    again."""
    deadline = monotonic() + RECORD_RETRY_SECONDS
    delay, again = 0.0, False
    while True:
        reply = yield Attempt(call)
        left = deadline - monotonic() - delay
        if not _lost_connection(reply) or left <= 0:
            return reply, again
        if delay:
            yield Sleep(delay)
        delay = min(max(delay * 2, FIRST_BACKOFF), MAX_BACKOFF)
        call, again = replace(call, wait=left), True


def _failure_raised(error: BaseException, failed: object, again: bool) -> BaseException:
    """What a tool's failure whose record was sent (``failed``: the reply) raises: the tool's
    own error, unless the ledger refused the record for a reason of its own (a lost lease,
    a cancellation's stored failure). A refusal of a record sent again after a dropped
    connection says nothing sure (the first may have been recorded, and the execution
    claimed again since, whose token then refuses the second): the tool's error, noted."""
    if not isinstance(failed, Exception):
        return error
    if _lost_connection(failed):
        error.add_note(f"Actae could not record this failure (the execution stays in"
                       f" flight; its next claim takes it over): {failed}")
        return error
    if again:
        error.add_note(f"Actae lost the connection while recording this failure; sent again,"
                       f" it was refused ({failed}): it was recorded, and the execution"
                       f" claimed again since")
        return error
    return failed


def storable(text: str) -> str:
    """``text`` as an error is recorded: a NUL byte written ``\\x00``, a lone surrogate as
    its backslash escape (PostgreSQL text holds neither: refused, the failure would go
    unrecorded), at most MAX_ERROR_CHARS."""
    return text.replace("\x00", "\\x00").encode("utf-8", "backslashreplace").decode()[
        :MAX_ERROR_CHARS]


def describe(error: BaseException) -> str:
    """The text an error is recorded with: ``Type: message``, storable; a group of errors
    (an asyncio.TaskGroup's) goes on with each of its own, ``; `` between them."""
    text = f"{type(error).__qualname__}: {error}".rstrip(": ")
    if isinstance(error, BaseExceptionGroup):
        inner = cast(BaseExceptionGroup[BaseException], error).exceptions
        text += ": " + "; ".join(describe(e) for e in inner)
    return storable(text)


def _unstorable(error: Exception) -> bool:
    """Whether a completion was refused for its result (over the size or depth limits, not
    JSON, text PostgreSQL cannot hold), not for its lease or a lost connection."""
    return isinstance(error, InvalidInput | TypeError)


def _fail_unstorable(ctx: ToolContext, error: Exception) -> Plan[Exception]:
    """Record that the tool ran but its result cannot be stored: a permanent failure, as
    leaving the execution claimed would let its lease lapse and the tool run again. Returns
    the error to raise (the refusal, or why the failure could not be recorded either)."""
    failed = yield Attempt(calls.fail_execution(
        ctx.execution_id, f"the tool's result could not be recorded: {describe(error)}",
        ctx.claim_token, retryable=False, channel_id=ctx.channel_id,
    ))
    return failed if isinstance(failed, Exception) else error


def _stored_failure(execution: Execution) -> ToolFailed:
    error = execution.error or execution.status
    detail = {
        "execution_id": str(execution.id), "channel_id": execution.channel_id,
        "key_name": execution.key_name, "tool_name": execution.tool_name, "error": error,
    }
    cls = Cancelled if execution.status == "cancelled" else ToolFailed
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


def _cancel(ctx: ToolContext, reason: str | None) -> Plan[NoReturn]:
    # The database records a failure of a cancel-requested execution as status cancelled.
    # An Attempt: when recording it fails (a dropped connection), that error is raised by
    # the plan as this element's outcome, so run_tools still records the other elements
    # (the execution stays cancel-requested; its next claim ends it as cancelled).
    failed, _ = yield from _recorded(calls.fail_execution(
        ctx.execution_id, f"cancelled: {reason or 'no reason given'}", ctx.claim_token,
        retryable=False, channel_id=ctx.channel_id,
    ))
    if isinstance(failed, Exception):
        raise failed
    raise _stored_failure(failed)


def _after_beat(handle: Any, ctx: ToolContext, beat: Any) -> Plan[Outcome | None]:
    """What a heartbeat's reply means for a running tool: None to let it run on; else it
    is stopped (the execution was cancelled, or the lease lost) and this returns the
    outcome it reached before it could be stopped, or raises the element's error (the
    cancellation recorded by _cancel, or the lost lease / the stored failure)."""
    if isinstance(beat, Execution) and not beat.cancel_requested:
        return None
    if _unanswered(beat):
        return None  # a dropped connection: try again (BEAT_RETRY seconds later)
    outcome: Outcome | None = yield Stop(handle, ctx)
    if outcome is not None:
        return outcome  # it finished before it could be stopped: record that
    if isinstance(beat, Execution):
        return (yield from _cancel(ctx, beat.cancel_reason))  # it raises
    row = yield Attempt(calls.get_execution(
        channel_id=ctx.channel_id, key_name=ctx.key_name))
    if isinstance(row, Execution) and row.status in ("failed", "cancelled"):
        raise _stored_failure(row) from beat
    raise beat


def _supervise(fn: Tool, ctx: ToolContext, lease_seconds: int) -> Plan[Outcome]:
    """Run fn(ctx) and heartbeat every third of the lease until it finishes; stop it when
    the execution is cancelled or the lease is lost."""
    handle = yield Start(fn, ctx)
    failing = False
    while True:
        outcome: Outcome | None = yield Wait(handle, BEAT_RETRY if failing
                                             else lease_seconds / 3)
        if outcome is not None:
            return outcome
        beat = yield Attempt(_beat(ctx))
        failing = _unanswered(beat)
        outcome = yield from _after_beat(handle, ctx, beat)
        if outcome is not None:
            return outcome


def _run_owned(
    tool: Tool, claim: Claim, reconcile: Tool | None, original: Execution | None
) -> Plan[Any]:
    execution = claim.execution
    ctx = _context(execution, original)
    if execution.cancel_requested:
        yield from _cancel(ctx, execution.cancel_reason)
    outcome: Outcome | None = None
    if claim.status == "reclaimed" and claim.ambiguous and reconcile is not None:
        found = yield from _supervise(reconcile, ctx, execution.lease_seconds)
        if isinstance(found, Raised):
            # Nothing is recorded: the execution stays ambiguous, so the next attempt
            # reconciles again instead of calling the tool blind.
            raise found.error
        if found.value is not None:
            outcome = found
    if outcome is None:
        outcome = yield from _supervise(tool, ctx, execution.lease_seconds)
    if isinstance(outcome, Returned):
        done, _ = yield from _recorded(calls.complete_execution(
            ctx.execution_id, ctx.claim_token, outcome.value, channel_id=ctx.channel_id
        ))
        if isinstance(done, Execution):
            return done.result
        if _unstorable(done):
            raise (yield from _fail_unstorable(ctx, done))
        raise done
    error = outcome.error
    if isinstance(error, Exception):
        # Not for KeyboardInterrupt and friends: like a crash, they leave it ambiguous.
        failed, again = yield from _recorded(calls.fail_execution(
            ctx.execution_id, describe(error), ctx.claim_token,
            retryable=not isinstance(error, PermanentError), channel_id=ctx.channel_id,
        ))
        raise _failure_raised(error, failed, again)
    raise error


def _run(
    tool: Tool, channel_id: str, key_name: str, tool_name: str, params: Mapping[str, Any],
    dedup_fields: Sequence[str] | None, lease_seconds: int, reconcile: Tool | None,
    wait_timeout: float | None, original: Execution | None,
) -> Plan[Any]:
    deadline = None if wait_timeout is None else monotonic() + wait_timeout
    delay = FIRST_BACKOFF
    while True:
        claim: Claim = yield calls.claim_execution(
            channel_id, key_name, tool_name, params, dedup_fields, lease_seconds
        )
        if claim.status == "replayed":
            return claim.result
        if claim.status == "failed":
            raise _stored_failure(claim.execution)
        if claim.status == "in_progress":
            remaining = None if deadline is None else deadline - monotonic()
            if remaining is not None and remaining <= 0:
                raise ToolInProgress(
                    f"execution {key_name} in channel {channel_id} is still in progress",
                    {"channel_id": channel_id, "key_name": key_name,
                     "lease_expires_at": claim.lease_expires_at.isoformat()},
                )
            yield Sleep(delay if remaining is None else min(delay, remaining))
            cap = min(MAX_BACKOFF, claim.execution.lease_seconds / 3)
            delay = min(delay * 2, max(cap, FIRST_BACKOFF))
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
) -> Plan[Any]:
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
) -> Plan[Any]:
    """The plan behind ``client.compensate``: undo the completed execution ``key_name`` by
    running ``tool(ctx)`` durably under ``compensation_key(key_name)``; ``ctx.original`` is
    the original execution. ``params`` defaults to ``{"compensates": key_name}``."""
    original = yield Attempt(calls.get_execution(channel_id=channel_id, key_name=key_name))
    if isinstance(original, NotFound):
        return None
    if isinstance(original, BaseException):
        raise original
    if original.status in ("failed", "cancelled"):
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


# --- run_tools: the batch form ---------------------------------------------------------------


class ToolCall(NamedTuple):
    """One element of ``run_tools``: what ``run_tool`` takes for one call (without
    ``reconcile``). A plain tuple ``(tool, key_name, tool_name, params[, dedup_fields])``
    is accepted too."""

    tool: Tool
    key_name: str
    tool_name: str
    params: Mapping[str, Any]
    dedup_fields: Sequence[str] | None = None


@dataclass
class _Slot:
    """One element's progress through run_tools: its outcome (a value or an error) once
    settled; ``handle`` while its tool runs; ``fallback`` when it goes through run_tool."""

    call: ToolCall
    ctx: ToolContext | None = None
    handle: Any = None
    outcome: Outcome | None = None
    fallback: bool = False
    recorded: bool = False  # its failure is in the ledger already (cancelled, lease lost)


def _supervise_all(slots: list[_Slot], lease_seconds: int) -> Plan[None]:
    """Wait for every started tool; every third of the lease while any runs, heartbeat each
    owned element not recorded yet (one heartbeat each: a finished tool's lease must hold
    until its result is recorded, or another worker could call it again). A running element
    found cancelled or lost is stopped and settled as _supervise settles one."""
    running: list[_Slot] = [s for s in slots if s.handle is not None and s.outcome is None]
    failing = False
    while running:
        beat_at = monotonic() + (BEAT_RETRY if failing else lease_seconds / 3)
        for slot in running:
            slot.outcome = yield Wait(slot.handle, max(0.0, beat_at - monotonic()))
        running = [s for s in running if s.outcome is None]
        if not running:
            return
        failing = False
        for slot in slots:
            ctx = slot.ctx
            if ctx is None or slot.handle is None or slot.recorded:
                continue
            beat: Any = yield Attempt(_beat(ctx))
            failing = failing or _unanswered(beat)
            if slot.outcome is not None:
                continue  # finished, to be recorded: its lease is only kept
            try:
                slot.outcome = yield from _after_beat(slot.handle, ctx, beat)
            except Exception as error:  # noqa: BLE001 - the element's outcome, recorded
                slot.outcome, slot.recorded = Raised(error), True
        running = [s for s in running if s.outcome is None]


def _settle(plan: Plan[Any]) -> Plan[Exception]:
    """Run a plan that ends by raising (``_cancel``) and return its error instead."""
    try:
        yield from plan
    except Exception as error:  # noqa: BLE001 - kept as the element's outcome
        return error
    raise AssertionError("the plan was expected to raise")


def _record(slots: list[_Slot], channel_id: str) -> Plan[None]:
    """Record every finished tool's outcome: all successes in one complete_executions (one
    by one when the batch is refused, so one element's error cannot lose the others'
    results), then each Exception with its own fail_execution."""
    done = [s for s in slots if s.handle is not None and isinstance(s.outcome, Returned)]
    if done:
        ctxs = [s.ctx for s in done if s.ctx is not None]
        values = [s.outcome.value for s in done if isinstance(s.outcome, Returned)]
        rows, _ = yield from _recorded(calls.complete_executions(
            [c.execution_id for c in ctxs], [c.claim_token for c in ctxs], values,
            channel_id=channel_id))
        if isinstance(rows, list):
            for slot, row in zip(done, cast(list[Execution], rows), strict=True):
                slot.outcome = Returned(row.result)
        elif _lost_connection(rows):  # still out of reach: each element would wait again
            for slot in done:
                slot.outcome, slot.recorded = Raised(rows), True
        else:
            for slot, ctx, value in zip(done, ctxs, values, strict=True):
                one, _ = yield from _recorded(calls.complete_execution(
                    ctx.execution_id, ctx.claim_token, value, channel_id=channel_id))
                if isinstance(one, Execution):
                    slot.outcome = Returned(one.result)
                elif _unstorable(one):
                    slot.outcome = Raised((yield from _fail_unstorable(ctx, one)))
                    slot.recorded = True
                else:  # refused (a lost lease): nothing more can be recorded for it
                    slot.outcome, slot.recorded = Raised(one), True
    for slot in slots:
        outcome, ctx = slot.outcome, slot.ctx
        if slot.handle is None or slot.recorded or not isinstance(outcome, Raised) or ctx is None:
            continue
        error = outcome.error
        if isinstance(error, Exception):
            # Not for KeyboardInterrupt and friends: like a crash, they leave it ambiguous.
            failed, again = yield from _recorded(calls.fail_execution(
                ctx.execution_id, describe(error), ctx.claim_token,
                retryable=not isinstance(error, PermanentError), channel_id=channel_id,
            ))
            if isinstance(failed, Exception):
                slot.outcome = Raised(_failure_raised(error, failed, again))


def run_tools(
    tool_calls: Sequence[ToolCall | tuple[Any, ...]],
    *,
    channel_id: str,
    lease_seconds: int = 60,
    wait_timeout: float | None = None,
) -> Plan[list[Any]]:
    """The plan behind ``client.run_tools``: ``run_tool`` for each element of
    ``tool_calls`` (a model's parallel tool calls) in channel ``channel_id``, with the tools
    running concurrently; returns one result per element, in order, each the value
    run_tool would return for it.

    Round trips: one ``claim_executions`` for every element. Elements ``replayed`` return
    their stored result (the tool is not called). Elements ``claimed`` / ``reclaimed``
    start their tools all at once and are heartbeated every third of the lease while any
    runs; then every success is recorded by one ``complete_executions`` and every failure
    by its own ``fail_execution`` (retryable unless :class:`~actae.errors.PermanentError`).
    N new calls that all succeed cost 2 round trips and 2 commits. An element already
    ``failed`` raises its stored error as run_tool does (:class:`~actae.errors.ToolFailed`
    or :class:`~actae.errors.Cancelled`); an element owned but cancel-requested is recorded
    as cancelled before any tool starts. Elements ``in_progress`` (another worker's lease,
    or a key repeated in the batch) go through run_tool one by one after the batch's own
    outcomes are recorded, waiting as run_tool waits; ``wait_timeout`` bounds that whole
    wait (then :class:`~actae.errors.ToolInProgress` for what is still in progress). They
    are not waited for when another element has failed already (nothing of theirs is this
    caller's to record).

    Errors: every element is settled, and every computed result recorded, before anything
    is raised; then the first element's error (in element order) is raised. The other
    elements' outcomes are in the ledger: a re-run replays the successes and reclaims the
    retryable failures. An interrupt (KeyboardInterrupt, a cancelled caller) records
    nothing for its own element, like a crash. run_tools has no ``reconcile``: an ambiguous
    takeover calls the tool again, so use run_tool for a call that needs reconciling.
    """
    slots = [_Slot(c if isinstance(c, ToolCall) else ToolCall(*c))
             for c in tool_calls]
    if not slots:
        return []
    claims: list[Claim] = yield calls.claim_executions(
        channel_id, [s.call.key_name for s in slots], [s.call.tool_name for s in slots],
        [s.call.params for s in slots],
        None if all(s.call.dedup_fields is None for s in slots)
        else [s.call.dedup_fields for s in slots],
        lease_seconds,
    )
    owned_leases: list[int] = []
    for slot, claim in zip(slots, claims, strict=True):
        execution = claim.execution
        if claim.status == "replayed":
            slot.outcome = Returned(claim.result)
        elif claim.status == "failed":
            slot.outcome = Raised(_stored_failure(execution))
        elif claim.status == "in_progress":
            slot.fallback = True
        else:
            slot.ctx = _context(execution, None)
            if execution.cancel_requested:
                slot.outcome = Raised((yield from _settle(
                    _cancel(slot.ctx, execution.cancel_reason))))
            else:
                owned_leases.append(execution.lease_seconds)
    for slot in slots:
        if slot.ctx is not None and slot.outcome is None:
            slot.handle = yield Start(slot.call.tool, slot.ctx)
    if owned_leases:
        yield from _supervise_all(slots, min(owned_leases))
        yield from _record(slots, channel_id)
    interrupted = next((s.outcome.error for s in slots if isinstance(s.outcome, Raised)
                        and not isinstance(s.outcome.error, Exception)), None)
    if interrupted is not None:
        raise interrupted
    if any(isinstance(s.outcome, Raised) for s in slots):
        # Raising anyway: nothing of an in-progress element is ours to record, and waiting
        # for it could even call a repeated key's failed tool again.
        slots = [s for s in slots if not s.fallback]
    deadline = None if wait_timeout is None else monotonic() + wait_timeout
    for slot in slots:
        if not slot.fallback:
            continue
        c = slot.call
        remaining = None if deadline is None else max(0.0, deadline - monotonic())
        try:
            value = yield from _run(c.tool, channel_id, c.key_name, c.tool_name, c.params,
                                    c.dedup_fields, lease_seconds, None, remaining, None)
        except Exception as error:  # noqa: BLE001 - raised below, after the others settle
            slot.outcome = Raised(error)
            # As before this loop: once an element has failed, the later in-progress ones
            # are not waited for (a later copy of this key would call its tool again).
            break
        slot.outcome = Returned(value)
    results: list[Any] = []
    for slot in slots:
        if isinstance(slot.outcome, Raised):
            raise slot.outcome.error
        assert slot.outcome is not None
        results.append(slot.outcome.value)
    return results
