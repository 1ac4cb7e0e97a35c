"""actae.otel with the OpenTelemetry SDK's in-memory exporter, and the ``actae`` logger, against a
real database: spans per call and per run_tool, attributes, the tool as a child of run_tool,
trace context stored with the execution and linked from replays, takeovers and forks."""

from __future__ import annotations

import asyncio
import collections
import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

import actae.otel
from actae import (
    ActaeClient,
    IdempotencyConflict,
    LeaseLost,
    PermanentError,
    SyncActaeClient,
    calls,
    observe,
)
from actae.plans.tools import ToolCall


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    actae.otel.instrument(provider)
    exporter.tracer = provider.get_tracer("test")  # type: ignore[attr-defined]  # for tools
    try:
        yield exporter
    finally:
        actae.otel.uninstrument()


def named(exporter: InMemorySpanExporter, name: str) -> list[ReadableSpan]:
    return [s for s in exporter.get_finished_spans() if s.name == name]


def only(exporter: InMemorySpanExporter, name: str) -> ReadableSpan:
    found = named(exporter, name)
    assert len(found) == 1, [s.name for s in exporter.get_finished_spans()]
    return found[0]


def ids(span: Any) -> tuple[int, int]:
    context = span.context if hasattr(span, "context") else span
    return context.trace_id, context.span_id


def test_run_tool_is_the_parent_of_its_calls_and_of_the_tool(
    dsn: str, spans: InMemorySpanExporter, unique: Callable[..., str]
) -> None:
    channel = unique("otel")
    tracer = spans.tracer  # type: ignore[attr-defined]

    async def charge(ctx: Any) -> dict[str, Any]:
        with tracer.start_as_current_span("provider.charge"):
            pass
        with tracer.start_as_current_span("tool.body") as body:
            return {"span": body.get_span_context().span_id}

    async def scenario() -> Any:
        async with ActaeClient(dsn, max_size=2) as client:
            await client.run_tool(charge, channel_id=channel, key_name="charge:1",
                                  tool_name="charge", params={"order_id": "1"})
            row = await client.get_execution(channel_id=channel, key_name="charge:1")
            return await client.get_execution_trace(row.id)

    stored = run(scenario())
    run_span = only(spans, "actae.run_tool")
    claim = only(spans, "actae.claim_execution")
    complete = only(spans, "actae.complete_execution")
    assert claim.parent is not None and claim.parent.span_id == run_span.context.span_id
    assert complete.parent is not None and complete.parent.span_id == run_span.context.span_id
    assert claim.kind == trace.SpanKind.CLIENT
    for span in (claim, run_span):
        attributes = dict(span.attributes or {})
        assert attributes["actae.channel_id"] == channel
        assert attributes["actae.key_name"] == "charge:1"
        assert attributes["actae.tool_name"] == "charge"
        assert attributes["actae.outcome"] == "claimed"
        assert attributes["actae.fence"] == 1 and attributes["actae.attempt"] == 1
        assert attributes["actae.ambiguous"] is False
    assert dict(claim.attributes or {})["db.operation.name"] == "claim_execution"
    assert dict(complete.attributes or {})["actae.status"] == "completed"
    body = only(spans, "tool.body")
    assert body.parent is not None and body.parent.span_id == run_span.context.span_id
    assert only(spans, "provider.charge").parent.span_id == run_span.context.span_id
    # the trace context of the span that did the work is stored with the execution (the
    # write is part of the claim's work: no span of its own)
    assert [(t.fence, t.traceparent) for t in stored] == [
        (1, actae.otel.traceparent(run_span.context))]
    assert not named(spans, "actae.set_execution_trace")


def test_sync_tool_in_a_thread_is_a_child_of_run_tool(
    dsn: str, spans: InMemorySpanExporter, unique: Callable[..., str]
) -> None:
    def tool(ctx: Any) -> str:
        with spans.tracer.start_as_current_span("tool.body"):  # type: ignore[attr-defined]
            return "ok"

    with SyncActaeClient(dsn, max_size=2) as client:
        assert client.run_tool(tool, channel_id=unique("otel-sync"), key_name="k",
                               tool_name="t", params={}) == "ok"
    body = only(spans, "tool.body")
    run_span = only(spans, "actae.run_tool")
    assert body.parent is not None and body.parent.span_id == run_span.context.span_id


def test_replay_links_to_the_span_that_did_the_work(
    dsn: str, spans: InMemorySpanExporter, conn: psycopg.Connection[Any],
    unique: Callable[..., str]
) -> None:
    channel = unique("otel-replay")
    calls: list[int] = []

    def tool(ctx: Any) -> int:
        calls.append(1)
        return 42

    with SyncActaeClient(dsn, max_size=2) as client:
        for _ in range(2):
            assert client.run_tool(tool, channel_id=channel, key_name="k", tool_name="t",
                                   params={}) == 42
        execution = client.get_execution(channel_id=channel, key_name="k")
        stored = client.get_execution_trace(execution.id)
    assert calls == [1]
    first, second = sorted(named(spans, "actae.run_tool"), key=lambda s: s.start_time or 0)
    assert [(t.fence, t.traceparent) for t in stored] == [
        (1, actae.otel.traceparent(first.context))]
    replay_claim = [s for s in named(spans, "actae.claim_execution")
                    if dict(s.attributes or {})["actae.outcome"] == "replayed"]
    assert len(replay_claim) == 1
    for span in (replay_claim[0], second):
        assert [ids(link.context) for link in span.links] == [ids(first)]
        assert dict(span.links[0].attributes or {})["actae.fence"] == 1
    assert dict(second.attributes or {})["actae.outcome"] == "replayed"
    assert not first.links


def test_takeover_after_a_lapsed_lease_links_to_the_dead_attempt_and_logs(
    dsn: str, spans: InMemorySpanExporter, conn: psycopg.Connection[Any],
    unique: Callable[..., str], caplog: pytest.LogCaptureFixture
) -> None:
    channel = unique("otel-takeover")
    with SyncActaeClient(dsn, max_size=2) as client:
        dead = client.claim_execution(channel, "k", "t", {}, lease_seconds=30)  # then "dies"
        conn.execute("update actae.executions set lease_expires_at = clock_timestamp()"
                     " - interval '1 second' where execution_id = %s", (dead.execution.id,))
        with caplog.at_level(logging.INFO, logger="actae"):
            assert client.run_tool(lambda ctx: ctx.fence, channel_id=channel, key_name="k",
                                   tool_name="t", params={}) == 2
        stored = client.get_execution_trace(dead.execution.id)
    first_claim = sorted(named(spans, "actae.claim_execution"), key=lambda s: s.start_time or 0)[0]
    run_span = only(spans, "actae.run_tool")
    # the direct claim had no run_tool around it: its own span is the one recorded
    assert [(t.fence, t.traceparent) for t in stored] == [
        (1, actae.otel.traceparent(first_claim.context)),
        (2, actae.otel.traceparent(run_span.context))]
    assert [ids(link.context) for link in run_span.links] == [ids(first_claim)]
    attributes = dict(run_span.attributes or {})
    assert attributes["actae.outcome"] == "reclaimed" and attributes["actae.ambiguous"] is True
    assert attributes["actae.fence"] == 2
    takeovers = [r for r in caplog.records if "ambiguous takeover" in r.getMessage()]
    assert len(takeovers) == 1 and takeovers[0].levelno == logging.WARNING
    assert takeovers[0].actae["fence"] == 2 and takeovers[0].actae["channel_id"] == channel


def test_a_fork_replaying_an_inherited_result_links_to_the_source_run(
    dsn: str, spans: InMemorySpanExporter, unique: Callable[..., str]
) -> None:
    channel = unique("otel-fork")
    with SyncActaeClient(dsn, max_size=2) as client:
        client.run_tool(lambda ctx: "done", channel_id=channel, key_name="k", tool_name="t",
                        params={})
        client.record_event(channel, "step", {"n": 1})
        fork = client.fork_channel(channel, 1, f"{channel}-fork")
        assert client.run_tool(lambda ctx: "again", channel_id=fork.channel_id, key_name="k",
                               tool_name="t", params={}) == "done"
    source, replay = sorted(named(spans, "actae.run_tool"), key=lambda s: s.start_time or 0)
    assert dict(replay.attributes or {})["actae.channel_id"] == f"{channel}-fork"
    assert dict(replay.attributes or {})["actae.source_channel_id"] == channel
    assert [ids(link.context) for link in replay.links] == [ids(source)]
    assert only(spans, "actae.fork_channel").status.status_code == StatusCode.UNSET


def test_errors_mark_the_span_and_lost_leases_and_cancellations_are_logged(
    dsn: str, spans: InMemorySpanExporter, unique: Callable[..., str],
    caplog: pytest.LogCaptureFixture
) -> None:
    channel = unique("otel-errors")
    with SyncActaeClient(dsn, max_size=2) as client, caplog.at_level(logging.INFO, "actae"):
        claim = client.claim_execution(channel, "k", "t", {"a": 1})
        with pytest.raises(IdempotencyConflict):
            client.claim_execution(channel, "k", "t", {"a": 2})
        with pytest.raises(LeaseLost):
            client.heartbeat_execution(claim.execution.id, claim.execution.id)  # wrong token
        client.cancel_execution(claim.execution.id, "customer changed their mind")
        beat = client.heartbeat_execution(claim.execution.id, claim.claim_token)
        assert beat.cancel_requested
        client.fail_execution(claim.execution.id, "cancelled: customer changed their mind",
                              claim.claim_token, retryable=False)
    conflict = [s for s in named(spans, "actae.claim_execution")
                if s.status.status_code == StatusCode.ERROR]
    assert len(conflict) == 1 and dict(conflict[0].attributes or {})["actae.sqlstate"] == "AC409"
    assert conflict[0].events[0].name == "exception"
    lost = [s for s in named(spans, "actae.heartbeat_execution")
            if s.status.status_code == StatusCode.ERROR]
    assert len(lost) == 1 and dict(lost[0].attributes or {})["actae.sqlstate"] == "AC423"
    messages = [(r.levelno, r.getMessage().split(":")[0]) for r in caplog.records]
    assert (logging.WARNING, "lost lease") in messages
    assert any(level == logging.INFO and m.startswith("cancellation requested")
               for level, m in messages)
    assert any(level == logging.INFO and m.startswith("cancelled execution")
               for level, m in messages)


def test_off_means_no_spans_and_none_means_no_logs(
    dsn: str, unique: Callable[..., str], caplog: pytest.LogCaptureFixture,
    conn: psycopg.Connection[Any]
) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace_tracer = provider.get_tracer("x")
    assert trace_tracer is not None
    channel = unique("otel-off")
    saved = observe.observer
    try:
        with SyncActaeClient(dsn, max_size=1) as client, caplog.at_level(logging.INFO, "actae"):
            dead = client.claim_execution(channel, "k", "t", {}, lease_seconds=30)
            conn.execute("update actae.executions set lease_expires_at = clock_timestamp()"
                         " - interval '1 second' where execution_id = %s", (dead.execution.id,))
            observe.observer = None
            client.run_tool(lambda ctx: 1, channel_id=channel, key_name="k", tool_name="t",
                            params={})
            assert client.get_execution_trace(dead.execution.id) == []
    finally:
        observe.observer = saved
    assert exporter.get_finished_spans() == ()
    assert not [r for r in caplog.records if r.name == "actae"]


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_a_call_cancelled_in_flight_ends_its_span_as_an_error(
    dsn: str, spans: InMemorySpanExporter, unique: Callable[..., str]
) -> None:
    """A call cancelled while it waits (a timeout, here on the channel's clock guard held by
    another session) ends its span when it is cancelled, marked as an error naming the
    cancellation, not when the exception (which keeps the call's frames) is collected."""
    channel = unique("otel-cancel")

    async def scenario() -> None:
        async with ActaeClient(dsn, max_size=1) as client:
            await client.record_event(channel, "first", {})
            with psycopg.connect(dsn, autocommit=True) as holder:
                holder.execute("select pg_advisory_lock(hashtextextended(%s, 1633907811))",
                               (channel,))
                with pytest.raises(TimeoutError) as caught:
                    await asyncio.wait_for(client.record_event(channel, "second", {}), 0.5)
                cancelled = caught.value.__cause__
                assert isinstance(cancelled, asyncio.CancelledError)
                ended = named(spans, "actae.record_event")
                assert len(ended) == 2, [s.name for s in spans.get_finished_spans()]
                assert ended[1].status.status_code == StatusCode.ERROR
                assert ended[1].status.description == "CancelledError"
            # the client's connection came back: the next call on it works
            assert (await client.record_event(channel, "third", {})).cursor == 2

    run(scenario())


def test_a_cancelled_run_tools_lease_is_given_back_outside_its_ended_span(
    dsn: str, spans: InMemorySpanExporter, unique: Callable[..., str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A run_tool cut short (a timeout) gives its lease back once its tool has stopped, after
    its span ended: that heartbeat was a child of the ended span and wrote to it ("Setting
    attribute on ended span"); now it is a trace of its own."""
    channel = unique("otel-giveback")

    async def slow(ctx: Any) -> None:
        await asyncio.sleep(30)

    async def scenario() -> None:
        async with ActaeClient(dsn) as client:
            with pytest.raises(TimeoutError):
                await asyncio.wait_for(client.run_tool(
                    slow, channel_id=channel, key_name="k", tool_name="slow", params={}), 0.3)
        # leaving the client waits for the give-back

    with caplog.at_level(logging.WARNING):
        run(scenario())
    tool = only(spans, "actae.run_tool")
    beat = only(spans, "actae.heartbeat_execution")
    assert beat.parent is None or beat.parent.span_id != ids(tool)[1]
    assert beat.start_time is not None and tool.end_time is not None
    assert beat.start_time >= tool.end_time
    assert "ended span" not in caplog.text, caplog.text


def test_a_claim_made_inside_a_tool_does_not_take_the_run_tool_span(
    dsn: str, spans: InMemorySpanExporter, unique: Callable[..., str]
) -> None:
    channel = unique("otel-nested")
    with SyncActaeClient(dsn, max_size=3) as client:
        def outer(ctx: Any) -> str:
            inner = client.claim_execution(channel, "inner", "t", {})
            client.complete_execution(inner.execution.id, inner.claim_token, "i")
            return "o"

        client.run_tool(outer, channel_id=channel, key_name="outer", tool_name="t", params={})
        inner_id = client.get_execution(channel_id=channel, key_name="inner").id
        outer_id = client.get_execution(channel_id=channel, key_name="outer").id
        traces = {"inner": client.get_execution_trace(inner_id),
                  "outer": client.get_execution_trace(outer_id)}
    run_span = only(spans, "actae.run_tool")
    assert dict(run_span.attributes or {})["actae.key_name"] == "outer"
    inner_claim = [s for s in named(spans, "actae.claim_execution")
                   if dict(s.attributes or {})["actae.key_name"] == "inner"][0]
    assert [t.traceparent for t in traces["outer"]] == [actae.otel.traceparent(run_span.context)]
    assert [t.traceparent for t in traces["inner"]] == [
        actae.otel.traceparent(inner_claim.context)]


def test_a_claim_inside_the_callers_transaction_gets_a_span_but_no_stored_trace(
    dsn: str, spans: InMemorySpanExporter, unique: Callable[..., str]
) -> None:
    channel = unique("otel-tx")
    with SyncActaeClient(dsn, max_size=1) as client:
        with psycopg.connect(dsn) as tx:  # one transaction, committed at the end of the block
            claim = client.claim_execution(channel, "k", "t", {}, conn=tx)
            client.complete_execution(claim.execution.id, claim.claim_token, "done", conn=tx)
        assert client.get_execution(channel_id=channel, key_name="k").status == "completed"
        assert client.get_execution_trace(claim.execution.id) == []
    claim_span = only(spans, "actae.claim_execution")
    assert dict(claim_span.attributes or {})["actae.outcome"] == "claimed"


# The actae.run_tool span reports where its execution ended, not the claim's 'claimed'.


def run_span_attributes(exporter: InMemorySpanExporter) -> dict[str, Any]:
    found = [s for s in exporter.get_finished_spans() if s.name == "actae.run_tool"]
    assert len(found) == 1
    return dict(found[0].attributes or {})


def test_run_tool_span_reports_completed(dsn: str, spans: InMemorySpanExporter,
                                         unique: Callable[..., str]) -> None:
    with SyncActaeClient(dsn, max_size=1) as client:
        client.run_tool(lambda ctx: {"ok": 1}, channel_id=unique("cf-otel"), key_name="k",
                        tool_name="t", params={})
    attributes = run_span_attributes(spans)
    assert attributes["actae.outcome"] == "claimed"  # how it began
    assert attributes["actae.status"] == "completed"  # how it ended


def test_run_tool_span_reports_failed(dsn: str, spans: InMemorySpanExporter,
                                      unique: Callable[..., str]) -> None:
    def boom(ctx: Any) -> None:
        raise RuntimeError("boom")

    with SyncActaeClient(dsn, max_size=1) as client, pytest.raises(Exception, match="boom"):
        client.run_tool(boom, channel_id=unique("cf-otel"), key_name="k", tool_name="t",
                        params={})
    assert run_span_attributes(spans)["actae.status"] == "failed"


def test_a_caller_cancelled_while_its_trace_is_recorded_releases_its_claim(
    dsn: str, spans: InMemorySpanExporter, unique: Callable[..., str]
) -> None:
    """The trace write of an owned claim comes after the claim committed. A caller cancelled
    during it (here it waits on a lock another session holds on actae.execution_traces) will
    not run the tool, so its claim is released at once (failed, retryable, before any tool
    ran): the next run_tool reclaims it unambiguously and runs the tool, instead of waiting
    out a 60 s lease and reconciling a call that never ran. The run_tool span ends as an
    error naming the cancellation."""
    channel = unique("otel-release")
    ran: list[int] = []

    async def tool(ctx: Any) -> str:
        ran.append(ctx.fence)
        return "done"

    async def scenario() -> None:
        async with ActaeClient(dsn, max_size=2) as client:
            arguments: dict[str, Any] = {"channel_id": channel, "key_name": "k",
                                         "tool_name": "t", "params": {}}
            with psycopg.connect(dsn) as holder:
                holder.execute("lock table actae.execution_traces in share row exclusive mode")
                with pytest.raises(TimeoutError):
                    await asyncio.wait_for(client.run_tool(tool, **arguments), 0.5)
                holder.rollback()
            for _ in range(50):  # the release runs in a task of its own: it lands shortly
                released = await client.get_execution(channel_id=channel, key_name="k")
                if released.status != "claimed":
                    break
                await asyncio.sleep(0.1)
            assert (released.status, released.retryable, released.fence) == ("failed", True, 1)
            assert (released.error or "").startswith("cancelled before the tool ran")
            assert await asyncio.wait_for(client.run_tool(tool, **arguments), 5) == "done"
            done = await client.get_execution(channel_id=channel, key_name="k")
            assert (done.status, done.fence, done.ambiguous) == ("completed", 2, False)

    run(scenario())
    assert ran == [2], "the tool ran once, in the reclaim"
    for name in ("actae.run_tool", "actae.claim_execution"):
        cancelled = named(spans, name)[0]
        assert cancelled.status.status_code == StatusCode.ERROR, name
        assert cancelled.status.description == "CancelledError", name


def test_the_release_does_not_hold_the_cancelled_caller(
    dsn: str, spans: InMemorySpanExporter, unique: Callable[..., str]
) -> None:
    """The release of a claim whose caller was cancelled during its trace write runs in a
    task of its own: with the pool's only connection taken by another task for 2 s, the
    caller's 0.5 s timeout still ends it in time, and the release lands once the connection
    is free."""
    channel = unique("otel-pool")

    async def tool(ctx: Any) -> str:
        return "done"

    async def scenario() -> float:
        async with ActaeClient(dsn, max_size=1) as client:
            run_call = client._run  # noqa: SLF001 - take the pool as the trace write starts
            taken = asyncio.Event()

            async def hog() -> None:
                conn = await client.pool.getconn()
                taken.set()
                await asyncio.sleep(2)
                await client.pool.putconn(conn)

            async def stalled(call: Any) -> Any:
                if call.sql == calls.SET_EXECUTION_TRACE:
                    asyncio.get_running_loop().create_task(hog())
                    await taken.wait()
                return await run_call(call)

            # a run_tool's calls go through the async client's coalescer
            client._coalescer._execute = stalled  # noqa: SLF001
            started = time.monotonic()
            with pytest.raises(TimeoutError):
                async with asyncio.timeout(0.5):
                    await client.run_tool(tool, channel_id=channel, key_name="k",
                                          tool_name="t", params={})
            waited = time.monotonic() - started
            for _ in range(50):
                row = await client.get_execution(channel_id=channel, key_name="k")
                if row.status != "claimed":
                    break
                await asyncio.sleep(0.1)
            assert (row.status, row.retryable) == ("failed", True)
            return waited

    assert run(scenario()) < 1.5


def test_a_lost_lease_on_the_trace_write_is_a_warning(
    dsn: str, spans: InMemorySpanExporter, unique: Callable[..., str],
    caplog: pytest.LogCaptureFixture
) -> None:
    """A worker whose lease lapses and is taken over before it records its trace: the trace
    write is refused (AC423) and logged as a lost lease, as for any other call; the claim
    itself still returns."""
    channel = unique("otel-lost")
    with SyncActaeClient(dsn, max_size=1) as client, psycopg.connect(
            dsn, autocommit=True) as other, caplog.at_level(logging.INFO, "actae"):
        run_call = client._run  # noqa: SLF001 - the stall between claim and trace write

        def stalled(call: Any) -> Any:
            if call.sql == calls.SET_EXECUTION_TRACE:
                other.execute("update actae.executions set lease_expires_at ="
                              " clock_timestamp() - interval '1 second'"
                              " where channel_id = %s", (channel,))
                taken = other.execute("select outcome from actae.claim_execution("
                                      "%s, 'k', 't', '{}')", (channel,)).fetchone()
                assert taken == ("reclaimed",)
            return run_call(call)

        client._run = stalled  # type: ignore[method-assign]  # noqa: SLF001
        claim = client.claim_execution(channel, "k", "t", {})
    assert claim.status == "claimed"
    lost = [r.getMessage() for r in caplog.records
            if r.levelno == logging.WARNING and r.getMessage().startswith("lost lease")]
    assert lost and lost[0].startswith("lost lease: set_execution_trace of execution"), lost


def test_a_compensate_span_reports_its_own_execution(
    dsn: str, spans: InMemorySpanExporter, unique: Callable[..., str]
) -> None:
    """The compensate span carries its arguments and the compensation's own execution, not
    the original execution it reads to decide whether to undo it (here a failed charge:
    nothing to undo, so no compensation runs and the span has no execution)."""
    channel = unique("otel-comp")

    def boom(ctx: Any) -> None:
        raise PermanentError("declined")

    with SyncActaeClient(dsn, max_size=1) as client:
        with pytest.raises(PermanentError):
            client.run_tool(boom, channel_id=channel, key_name="charge", tool_name="charge",
                            params={})
        spans.clear()
        client.compensate(lambda ctx: "refunded", channel_id=channel, key_name="charge",
                          tool_name="refund")
    attributes = dict(only(spans, "actae.compensate").attributes or {})
    assert attributes.get("actae.key_name") == "charge"  # the argument
    assert attributes.get("actae.tool_name") == "refund"
    assert "actae.execution_id" not in attributes and "actae.status" not in attributes


def test_a_lost_run_lease_names_the_run(
    dsn: str, unique: Callable[..., str], caplog: pytest.LogCaptureFixture
) -> None:
    channel = unique("otel-run")
    with SyncActaeClient(dsn, max_size=1) as client, caplog.at_level(logging.INFO, "actae"):
        client.start_run(channel, "agent", {}, unique("q"))
        with pytest.raises(LeaseLost):
            client.heartbeat_run(channel, uuid.uuid4())
    assert any(r.getMessage().startswith(f"lost lease: heartbeat_run of run {channel}")
               for r in caplog.records), [r.getMessage() for r in caplog.records]


def test_a_span_processor_that_raises_does_not_fail_the_call(
    dsn: str, unique: Callable[..., str]
) -> None:
    """A processor whose on_end raises (the SDK does not guard its processors) is logged: the
    claim it measured has committed, so run_tool goes on, runs the tool and completes, and
    the run_tool span's end does not turn the finished call into an error."""

    class Raising(SimpleSpanProcessor):
        def on_end(self, span: ReadableSpan) -> None:
            if span.name in ("actae.claim_execution", "actae.run_tool"):
                raise RuntimeError("exporter down")
            super().on_end(span)

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(Raising(exporter))
    actae.otel.instrument(provider)
    try:
        with SyncActaeClient(dsn, max_size=1) as client:
            assert client.run_tool(lambda ctx: "ran", channel_id=unique("otel-proc"),
                                   key_name="k", tool_name="t", params={}) == "ran"
    finally:
        actae.otel.uninstrument()
    assert [s.name for s in exporter.get_finished_spans()].count("actae.complete_execution") == 1


def test_run_tools_stores_each_elements_trace_and_links_its_replays(
    dsn: str, spans: InMemorySpanExporter, unique: Callable[..., str]
) -> None:
    """A run_tools batch: its claim_executions span has an ``actae.claim`` event per element,
    each owned element stores the traceparent of the run_tools span (its tools run in it),
    and the same batch run again replays both, linking its claim span and its run_tools span
    to that span once per element."""
    channel = unique("otel-batch")
    elements = [(lambda ctx: "a", "k1", "t", {"n": 1}), (lambda ctx: "b", "k2", "t", {"n": 2})]
    with SyncActaeClient(dsn, max_size=2) as client:
        assert client.run_tools(elements, channel_id=channel) == ["a", "b"]
        first = only(spans, "actae.run_tools")
        claimed = only(spans, "actae.claim_executions")
        assert [dict(e.attributes or {})["actae.outcome"] for e in claimed.events] == [
            "claimed", "claimed"]
        stored = [client.get_execution_trace(
            client.get_execution(channel_id=channel, key_name=key).id) for key in ("k1", "k2")]
        assert [[(t.fence, t.traceparent) for t in s] for s in stored] == [
            [(1, actae.otel.traceparent(first.context))]] * 2
        spans.clear()
        assert client.run_tools(elements, channel_id=channel) == ["a", "b"]
    replay = only(spans, "actae.claim_executions")
    assert [dict(e.attributes or {})["actae.outcome"] for e in replay.events] == [
        "replayed", "replayed"]
    for span in (replay, only(spans, "actae.run_tools")):
        assert [ids(link.context) for link in span.links] == [ids(first)] * 2


def test_a_run_tools_caller_cancelled_during_its_traces_releases_every_claim(
    dsn: str, spans: InMemorySpanExporter, unique: Callable[..., str]
) -> None:
    """As for run_tool: a run_tools caller cancelled while its batch's traces are recorded
    runs none of its tools, so every claim the batch won is released (failed, retryable)."""
    channel = unique("otel-batch-cancel")

    async def tool(ctx: Any) -> str:
        return "ran"

    async def scenario() -> list[Any]:
        async with ActaeClient(dsn, max_size=2) as client:
            with psycopg.connect(dsn) as holder:
                holder.execute("lock table actae.execution_traces in share row exclusive mode")
                with pytest.raises(TimeoutError):
                    await asyncio.wait_for(client.run_tools(
                        [(tool, "k1", "t", {}), (tool, "k2", "t", {})], channel_id=channel), 0.5)
                holder.rollback()
            for _ in range(50):  # the releases run in tasks of their own
                rows = [await client.get_execution(channel_id=channel, key_name=k)
                        for k in ("k1", "k2")]
                if all(r.status != "claimed" for r in rows):
                    break
                await asyncio.sleep(0.1)
            return rows

    rows = run(scenario())
    assert [(r.status, r.retryable, r.fence) for r in rows] == [("failed", True, 1)] * 2
    assert only(spans, "actae.claim_executions").status.description == "CancelledError"


def test_a_batch_a_tool_claims_itself_is_not_its_run_tools(
    dsn: str, spans: InMemorySpanExporter, unique: Callable[..., str]
) -> None:
    """claim_executions called by a tool inside a run_tool is not that run_tool's batch: its
    elements store the batch's own span, and the run_tool span gets no links from it."""
    outer, inner = unique("otel-outer"), unique("otel-inner")
    with SyncActaeClient(dsn, max_size=2) as client:
        def tool(ctx: Any) -> str:
            for claim in client.claim_executions(inner, ["b1", "b2"], ["t", "t"], [{}, {}]):
                assert claim.claim_token is not None
                client.complete_execution(claim.execution.id, claim.claim_token, "r")
            return "ok"

        client.run_tool(tool, channel_id=outer, key_name="k", tool_name="t", params={})
        batch = only(spans, "actae.claim_executions")
        stored = {client.get_execution_trace(client.get_execution(
            channel_id=inner, key_name=key).id)[0].traceparent for key in ("b1", "b2")}
        assert stored == {actae.otel.traceparent(batch.context)}
        spans.clear()
        client.run_tool(lambda ctx: client.claim_executions(inner, ["b1", "b2"], ["t", "t"],
                                                            [{}, {}]) and "ok",
                        channel_id=outer, key_name="k2", tool_name="t", params={})
    assert only(spans, "actae.run_tool").links == ()
    assert len(only(spans, "actae.claim_executions").links) == 2


def test_a_run_tools_element_claimed_again_later_is_owned_by_run_tools(
    dsn: str, spans: InMemorySpanExporter, unique: Callable[..., str]
) -> None:
    """An element another worker holds is claimed again by a single call once it lets go:
    that claim stores the run_tools span (the element's tool runs in it) and links both
    spans to the earlier attempt, without setting the element's attributes on run_tools."""
    channel = unique("otel-fallback")
    with SyncActaeClient(dsn, max_size=3) as client:
        held = client.claim_execution(channel, "k2", "t", {})
        assert held.claim_token is not None
        token = held.claim_token
        first = only(spans, "actae.claim_execution")
        spans.clear()

        def let_go() -> None:
            time.sleep(0.5)
            client.fail_execution(held.execution.id, "boom", token, retryable=True)

        worker = threading.Thread(target=let_go)
        worker.start()
        assert client.run_tools([(lambda ctx: 1, "k1", "t", {}), (lambda ctx: 2, "k2", "t", {})],
                                channel_id=channel) == [1, 2]
        worker.join()
        run_tools = only(spans, "actae.run_tools")
        stored = client.get_execution_trace(client.get_execution(
            channel_id=channel, key_name="k2").id)
    assert [t.traceparent for t in stored] == [actae.otel.traceparent(first.context),
                                               actae.otel.traceparent(run_tools.context)]
    reclaim = [s for s in named(spans, "actae.claim_execution")
               if dict(s.attributes or {}).get("actae.outcome") == "reclaimed"]
    assert len(reclaim) == 1
    for span in (run_tools, reclaim[0]):
        assert [ids(link.context) for link in span.links] == [ids(first)]
    assert "actae.outcome" not in dict(run_tools.attributes or {})


def test_a_failed_release_does_not_keep_the_others_or_hide_the_interrupt(
    dsn: str, spans: InMemorySpanExporter, unique: Callable[..., str]
) -> None:
    """Sync client: Ctrl-C during a batch's first trace write, and the first release cannot
    be sent. The interrupt reaches the caller, and the other claims are released."""
    channel = unique("otel-kbi")
    with SyncActaeClient(dsn, max_size=2) as client:
        run_call = client._run  # noqa: SLF001 - an interrupt and a lost release, on cue
        lost: list[Any] = []

        def patched(call: Any) -> Any:
            name = observe.call_name(call)
            if name == "set_execution_trace":
                raise KeyboardInterrupt
            if name == "fail_execution" and not lost:
                lost.append(call)
                raise RuntimeError("the release could not be sent")
            return run_call(call)

        client._run = patched  # type: ignore[method-assign]  # noqa: SLF001
        with pytest.raises(KeyboardInterrupt):
            client.run_tools([(lambda ctx: 1, f"k{i}", "t", {}) for i in (1, 2, 3)],
                             channel_id=channel)
        client._run = run_call  # type: ignore[method-assign]  # noqa: SLF001
        rows = [client.get_execution(channel_id=channel, key_name=f"k{i}") for i in (1, 2, 3)]
    assert [r.status for r in rows] == ["claimed", "failed", "failed"]


def test_run_tools_given_a_generator_runs_every_tool_when_traced(
    dsn: str, spans: InMemorySpanExporter, unique: Callable[..., str]
) -> None:
    """Tracing reads the elements' keys for the span; a generator (read once) must still
    reach the plan whole, as without tracing."""
    ran: list[str] = []

    def tool(ctx: Any) -> str:
        ran.append(ctx.key_name)
        return ctx.key_name

    with SyncActaeClient(dsn, max_size=2) as client:
        out = client.run_tools((ToolCall(tool, f"k{i}", "t", {}) for i in range(3)),
                               channel_id=unique("otel-gen"))
    assert out == ["k0", "k1", "k2"] and sorted(ran) == out

    async def scenario() -> list[Any]:
        async with ActaeClient(dsn, max_size=2) as client:
            return await client.run_tools(
                (ToolCall(tool, f"a{i}", "t", {}) for i in range(2)),
                channel_id=unique("otel-gen"))

    ran.clear()
    assert asyncio.run(scenario()) == ["a0", "a1"] and sorted(ran) == ["a0", "a1"]
    assert len(named(spans, "actae.run_tools")) == 2


def test_a_misshapen_run_tools_element_raises_its_own_error_and_ends_the_span(
    dsn: str, spans: InMemorySpanExporter, unique: Callable[..., str]
) -> None:
    with SyncActaeClient(dsn, max_size=1) as client, pytest.raises(TypeError):
        client.run_tools([(lambda ctx: None,)], channel_id=unique("otel-bad"))  # type: ignore[list-item]
    span = only(spans, "actae.run_tools")  # ended (exported), not left open
    assert span.status.status_code is StatusCode.ERROR


def test_a_run_tool_that_lost_its_lease_keeps_its_own_attempt_on_its_span(
    dsn: str, spans: InMemorySpanExporter, unique: Callable[..., str], conn: psycopg.Connection
) -> None:
    """After a lost lease the plan reads the execution, now another worker's (fence 2,
    completed): the run_tool span still reports its own attempt (fence 1, not ambiguous)."""
    channel = unique("otel-lost")

    def usurp() -> None:
        time.sleep(0.5)
        conn.execute("update actae.executions set lease_expires_at = now() - interval '1 s'"
                     " where channel_id = %s and key_name = 'k'", (channel,))
        with SyncActaeClient(dsn, max_size=1) as other:
            claim = other.claim_execution(channel, "k", "t", {}, lease_seconds=60)
            assert claim.status == "reclaimed" and claim.claim_token is not None
            other.complete_execution(claim.execution.id, claim.claim_token, "theirs")

    def slow(ctx: Any) -> str:
        time.sleep(2.5)
        return "mine"

    thief = threading.Thread(target=usurp)
    with SyncActaeClient(dsn, max_size=1) as client, pytest.raises(LeaseLost):
        thief.start()
        client.run_tool(slow, channel_id=channel, key_name="k", tool_name="t", params={},
                        lease_seconds=3)
    thief.join()
    attributes = run_span_attributes(spans)
    assert (attributes["actae.fence"], attributes["actae.attempt"],
            attributes["actae.ambiguous"]) == (1, 1, False)
    assert attributes["actae.status"] != "completed"


def test_run_tools_given_any_sequence_owns_its_elements_traces(
    dsn: str, spans: InMemorySpanExporter, unique: Callable[..., str]
) -> None:
    """run_tools takes a Sequence: a deque's elements are the run_tools span's, as a
    list's (their stored traceparent is that span's)."""
    channel = unique("otel-deque")
    with SyncActaeClient(dsn, max_size=2) as client:
        client.run_tools(collections.deque([ToolCall(lambda ctx: 1, "k1", "t", {}),
                                            ToolCall(lambda ctx: 2, "k2", "t", {})]),
                         channel_id=channel)
        owner = format(only(spans, "actae.run_tools").context.span_id, "016x")
        stored = {trace.traceparent.split("-")[2]
                  for row in client.list_executions(channel)
                  for trace in client.get_execution_trace(row.id)}
    assert stored == {owner}
