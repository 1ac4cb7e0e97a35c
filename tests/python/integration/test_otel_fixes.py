"""The actae.run_tool span reports where its execution ended, not the claim's 'claimed'."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import actae.otel
from actae import SyncActaeClient


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    actae.otel.instrument(provider)
    try:
        yield exporter
    finally:
        actae.otel.uninstrument()


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
