"""OpenTelemetry spans for every Actae call (extra ``actae[otel]``).

    import actae.otel
    actae.otel.instrument()               # the global tracer provider, or tracer_provider=...

After ``instrument()`` both clients open a CLIENT span ``actae.<function>`` per call (e.g.
``actae.claim_execution``) and an INTERNAL span ``actae.run_tool`` (``actae.compensate``,
``actae.run_tools``) around a whole run_tool, which is the parent of its calls and of the tool
itself (the tool runs in the span's context, as a task or in a thread); a run_tools batch's
``actae.claim_executions`` span has an ``actae.claim`` event per element. Attributes, where
the call has them:
``actae.channel_id``, ``actae.key_name``, ``actae.tool_name``, ``actae.execution_id``,
``actae.outcome`` (the claim outcome), ``actae.status``, ``actae.fence``, ``actae.attempt``,
``actae.ambiguous``; plus ``db.system.name = postgresql`` and ``db.operation.name``. The
run_tool span gets the claim's outcome, fence, attempt and ambiguous too, and the status its
execution ended with (``completed``, ``failed``, ...; ``claimed`` only if it never finished).
An error sets the span's status and records the exception (``actae.sqlstate`` for Actae's
own); so does a call cancelled or interrupted in flight (``CancelledError``,
``KeyboardInterrupt``), whose span ends when it is cancelled.

Trace context is stored with the execution: when a claim makes this worker the owner
(``claimed``/``reclaimed``), the traceparent of the span around the tool (the run_tool span, or
the claim's own span when claim_execution is called directly) is recorded with
``actae.set_execution_trace`` under the attempt's fence. When a claim is ``replayed`` or
``reclaimed`` (a fork replaying an inherited result included), the traceparents recorded for the
execution's earlier attempts are read with ``actae.get_execution_trace`` and added as span links
(attribute ``actae.fence`` on the link) to the claim span and to the run_tool span, so a trace
viewer goes from a replay, or from the worker that took over after a crash, to the span that did
the work. These two extra round trips happen only when tracing is on (a recording span) and
only on those claims (``instrument(link_attempts=False)`` skips the read); a failure in them is
logged at DEBUG and never fails the caller's call. A claim made inside the caller's own
transaction (``conn=``) gets its span and attributes but neither: on another connection they
could wait for that transaction's row locks, and on the same one an error would abort it.
Spans that do not record (the API's no-op tracer, a sampled-out trace) cost no attribute work
and no round trip.

``uninstrument()`` restores plain logging (:mod:`actae.observe`). Logging of takeovers, lost
leases and cancellations stays on either way.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from actae import calls, observe
from actae._coalesce import release_call
from actae._extras import needs
from actae.context import compensation_key
from actae.errors import ActaeError, LeaseLost
from actae.models import Claim, Execution, ExecutionTrace

with needs("otel", "actae.otel"):
    from opentelemetry import trace
    from opentelemetry.trace import (
        Link,
        Span,
        SpanContext,
        SpanKind,
        Status,
        StatusCode,
        TraceFlags,
    )

__all__ = ["TRACER_NAME", "ActaeTracing", "instrument", "traceparent", "uninstrument"]

TRACER_NAME = "actae"
_ARGUMENTS = ("channel_id", "key_name", "tool_name", "execution_id")
log = logging.getLogger("actae.otel")


@dataclass(slots=True)
class _Plan:
    """The span of a run_tool / compensate / run_tools in progress, the (channel_id,
    key_name) pairs its own claims use, whether its span reports its execution's
    attributes (a run_tools span has several executions: it does not), and the fence of
    its last claim (a row of another fence, read after a lost lease, is the new owner's
    attempt, not this one's)."""

    span: Span
    keys: frozenset[tuple[Any, Any]]
    reports: bool
    fence: int | None = None


_plan_span: contextvars.ContextVar[_Plan | None] = contextvars.ContextVar(
    "actae_otel_plan_span", default=None)


def traceparent(context: SpanContext) -> str:
    """The W3C traceparent of a span context."""
    return f"00-{context.trace_id:032x}-{context.span_id:016x}-{int(context.trace_flags):02x}"


def _span_context(value: str) -> SpanContext:
    _, trace_id, span_id, flags = value.split("-")
    return SpanContext(int(trace_id, 16), int(span_id, 16), is_remote=True,
                       trace_flags=TraceFlags(int(flags, 16)))


def _started(tracer: trace.Tracer, name: str, kind: SpanKind,
             attributes: Mapping[str, Any] | None = None) -> Span | None:
    """A new span, or None when a span processor raised starting it (logged: tracing never
    fails a call)."""
    try:
        return tracer.start_span(name, kind=kind, attributes=attributes)
    except Exception as exc:  # noqa: BLE001 - tracing must not fail the call
        log.debug("a span processor failed starting %s: %s", name, exc)
        return None


def _end(span: Span) -> None:
    """End a span; a span processor that raises is logged, never the caller's error (what
    the span measured has happened)."""
    try:
        span.end()
    except Exception as exc:  # noqa: BLE001 - tracing must not fail the call
        log.debug("a span processor failed ending %s: %s", span, exc)


def _failed(span: Span, error: BaseException, *, message: bool = False) -> None:
    """Mark a span as ended by ``error``: an exception, a cancellation or an interrupt. The
    status names its type (and, with ``message``, an exception's text, as the SDK does)."""
    span.record_exception(error)
    text = str(error) if message and isinstance(error, Exception) else ""
    span.set_status(Status(StatusCode.ERROR, f"{type(error).__name__}: {text}" if text
                           else type(error).__name__))


def _claim_facts(claim: Claim, call: calls.Call[Any]) -> dict[str, Any]:
    """The attributes of a claim: its row's and its outcome; for a fork replaying an
    inherited result, the fork as the channel and the ancestor as the source."""
    row = claim.execution
    channel_id = call.params.get("channel_id")
    facts = {**_row_attributes(row), "actae.outcome": claim.status}
    if channel_id is not None and channel_id != row.channel_id:
        facts["actae.channel_id"] = str(channel_id)
        facts["actae.source_channel_id"] = row.channel_id
    return facts


def _row_attributes(row: Execution) -> dict[str, Any]:
    return {
        "actae.channel_id": row.channel_id, "actae.key_name": row.key_name,
        "actae.tool_name": row.tool_name, "actae.execution_id": str(row.id),
        "actae.status": row.status, "actae.fence": row.fence, "actae.attempt": row.attempt,
        "actae.ambiguous": row.ambiguous,
    }


def _plan_keys(name: str, arguments: Mapping[str, Any]) -> frozenset[tuple[Any, Any]]:
    """The (channel_id, key_name) pairs a plan's own claims use: a run_tools' elements'
    (ToolCall or tuple: key_name second), a compensation's own key (not the one it undoes).
    Elements the plan itself will refuse give none: the plan raises its own error."""
    channel, key = arguments.get("channel_id"), arguments.get("key_name")
    if name != "run_tools":
        return frozenset({(channel, compensation_key(str(key)) if name == "compensate"
                           else key)})
    tool_calls = arguments.get("tool_calls")
    # Any sequence (the client made an iterator a list); a str is no list of calls.
    if not isinstance(tool_calls, Sequence) or isinstance(tool_calls, str | bytes):
        return frozenset()
    try:
        return frozenset((channel, element[1]) for element in cast(Sequence[Any], tool_calls))
    except (TypeError, IndexError, KeyError):
        return frozenset()


class ActaeTracing(observe.Observer):
    """The observer ``instrument()`` installs: the logging of :class:`actae.observe.Observer`
    plus a span per call and per run_tool, and execution trace links."""

    def __init__(self, tracer: trace.Tracer, *, link_attempts: bool = True) -> None:
        self.tracer = tracer
        self.link_attempts = link_attempts

    def steps(self, call: calls.Call[Any]) -> observe.Steps:
        name = observe.call_name(call)
        parent = trace.get_current_span()
        # Not made current: nothing runs inside a call span, and attaching a context costs
        # more than the span itself. Its parent is the current span (e.g. run_tool's).
        span = _started(self.tracer, f"actae.{name}", SpanKind.CLIENT)
        if span is None or not span.is_recording():  # no-op tracer, sampled out, refused
            if span is not None:
                _end(span)
            return (yield from super().steps(call))
        try:
            span.set_attribute("db.system.name", "postgresql")
            span.set_attribute("db.operation.name", name)
            for argument in _ARGUMENTS:
                value = call.params.get(argument)
                if value is not None:
                    span.set_attribute(f"actae.{argument}", str(value))
            try:
                result: Any = yield from super().steps(call)
            except GeneratorExit:  # closed unfinished, by nobody's error
                raise
            except BaseException as error:  # a cancelled or interrupted call too
                _failed(span, error)
                if isinstance(error, ActaeError):
                    span.set_attribute("actae.sqlstate", error.sqlstate)
                raise
            if isinstance(result, Execution):
                span.set_attributes(_row_attributes(result))
                plan = self._plan_of(parent, (result.channel_id, result.key_name))
                if plan is not None and plan.reports and plan.fence in (None, result.fence):
                    # the run_tool span reports where its execution ended (completed,
                    # failed, ...), not the 'claimed' its claim left there
                    plan.span.set_attributes(_row_attributes(result))
                return result
            batch = cast(list[Any], result) if isinstance(result, list) else None
            try:
                if isinstance(result, Claim):
                    key = (call.params.get("channel_id"), call.params.get("key_name"))
                    yield from self._claimed(span, self._plan_of(parent, key), result, call)
                elif batch is not None and name == "claim_executions":
                    yield from self._claimed_batch(span, parent, batch, call)
            except GeneratorExit:
                raise
            except BaseException as error:  # cancelled during the trace round trips
                _failed(span, error)
                raise
            return cast(Any, result)  # a Claim or a batch's list, as the call returned it
        finally:
            _end(span)

    @staticmethod
    def _plan_of(parent: Span, *keys: tuple[Any, Any]) -> _Plan | None:
        """The plan (run_tool, compensate, run_tools) a call for these (channel_id,
        key_name) pairs belongs to: the current plan, when its span is the current span and
        the keys are its own (not a tool inside it calling for other keys)."""
        plan = _plan_span.get()
        if plan is None or plan.span is not parent or not keys:
            return None
        return plan if all(key in plan.keys for key in keys) else None

    def _claimed(self, span: Span, plan: _Plan | None, claim: Claim,
                 call: calls.Call[Any]) -> observe.Steps:
        """Attributes and links of a claim. The trace read and write run on pooled connections
        of their own, and not at all for a claim made inside the caller's transaction
        (conn=): they could block on its row locks or abort it with an error. A caller
        cancelled or interrupted during them will not run the tool of the claim it won: the
        claim is released (release_call) before the cancellation goes on."""
        facts = _claim_facts(claim, call)
        span.set_attributes(facts)
        if plan is not None and plan.reports:
            plan.span.set_attributes(facts)
            plan.fence = claim.fence
        if call.conn is None:
            yield from self._traced(span, None if plan is None else plan.span, [claim])

    def _claimed_batch(self, span: Span, parent: Span, claims: list[Any],
                       call: calls.Call[Any]) -> observe.Steps:
        """A claim_executions batch: an event ``actae.claim`` per element on its span (with
        the attributes a single claim's span gets), then each element's trace round trips,
        with the span of the run_tools whose batch it is (its tools run in it) as the owner."""
        channel_id = call.params.get("channel_id")
        plan = self._plan_of(parent, *((channel_id, key)
                                      for key in call.params.get("key_names") or ()))
        elements = [c for c in claims if isinstance(c, Claim)]
        for claim in elements:
            span.add_event("actae.claim", _claim_facts(claim, call))
        if call.conn is None:
            yield from self._traced(span, None if plan is None else plan.span, elements)

    def _traced(self, span: Span, owner_span: Span | None, claims: list[Claim]) -> observe.Steps:
        """The trace round trips of claims just made (_trace). A caller cancelled or
        interrupted during them will not run the tools of the claims it won: each is
        released (release_call), in a task of its own, before the cancellation goes on."""
        try:
            for claim in claims:
                yield from self._trace(span, owner_span, claim)
        except GeneratorExit:
            raise
        except BaseException:
            for claim in claims:
                release = release_call(claim, "its caller was cancelled while its trace was"
                                              " recorded")
                if release is not None:  # the cancelled caller does not wait for it
                    yield observe.Detached(release)
            raise

    def _trace(self, span: Span, owner_span: Span | None, claim: Claim) -> observe.Steps:
        """Links to the traces of a replayed or reclaimed execution's earlier attempts, and
        the traceparent of an owned attempt; failures are logged, never raised (a lost
        lease at WARNING, as the observer logs it for every call)."""
        row = claim.execution
        if self.link_attempts and claim.status in ("replayed", "reclaimed"):
            try:
                earlier: list[ExecutionTrace] = yield calls.get_execution_trace(row.id)
            except Exception as exc:  # noqa: BLE001 - tracing must not fail the call
                log.debug("could not read the traces of execution %s: %s", row.id, exc)
                earlier = []
            for recorded in earlier:
                link = Link(_span_context(recorded.traceparent),
                            {"actae.fence": recorded.fence, "actae.link": "attempt"})
                for target in (span, owner_span):
                    if target is not None:
                        target.add_link(link.context, link.attributes)
        if claim.owned and claim.claim_token is not None:
            worker = owner_span or span
            context = worker.get_span_context()
            if context.is_valid:
                record = calls.set_execution_trace(row.id, claim.claim_token,
                                                   traceparent(context))
                try:
                    yield record
                except LeaseLost as exc:
                    self.lost_lease(record, exc)
                except Exception as exc:  # noqa: BLE001 - tracing must not fail the call
                    log.debug("could not record the trace of execution %s: %s", row.id, exc)

    @contextlib.contextmanager
    def plan(self, name: str, arguments: Mapping[str, Any]) -> Generator[None, None, None]:
        attributes = {f"actae.{a}": str(arguments[a]) for a in ("channel_id", "key_name",
                                                                 "tool_name") if a in arguments}
        span = _started(self.tracer, f"actae.{name}", SpanKind.INTERNAL, attributes)
        if span is None:
            yield
            return
        keys = _plan_keys(name, arguments)
        token = _plan_span.set(_Plan(span, keys, reports=name != "run_tools"))
        try:
            with trace.use_span(span, end_on_exit=False, record_exception=False,
                                set_status_on_exception=False):
                yield
        except GeneratorExit:
            raise
        except BaseException as error:  # a cancelled or interrupted one too
            _failed(span, error, message=True)
            raise
        finally:
            _plan_span.reset(token)
            _end(span)


def instrument(
    tracer_provider: trace.TracerProvider | None = None, *, link_attempts: bool = True,
) -> ActaeTracing:
    """Trace every Actae call from now on (see the module docstring); returns the observer.
    ``link_attempts=False`` skips reading earlier attempts' traces on replays and takeovers
    (one round trip each) at the price of their links."""
    tracer = trace.get_tracer(TRACER_NAME, tracer_provider=tracer_provider)
    observer = ActaeTracing(tracer, link_attempts=link_attempts)
    observe.observer = observer
    return observer


def uninstrument() -> None:
    """Back to logging only."""
    observe.observer = observe.Observer()
