"""What the observer hook costs per Actae call: off, logging (the default), OpenTelemetry.

    ACTAE_DSN=... .venv/bin/python tests/bench/otel_overhead.py [--rounds 5] [--cycles 400]

Two measurements, every configuration interleaved round by round in the same run so they see
the same machine:

* ``hook``: the Python cost alone, ``client.run`` with the database replaced by a function that
  returns a ready Claim (no I/O), per call in microseconds;
* ``claim+complete``: a real claim_execution + complete_execution cycle against the database,
  per cycle in microseconds (median of the rounds), and a replayed claim.

Configurations: ``none`` (``actae.observe.observer = None``), ``logging`` (the default
observer), ``otel-noop`` (instrumented, no SDK: the API's no-op tracer), ``otel-sdk``
(instrumented, SDK tracer provider with a no-op exporter: spans are built and ended; on an
owned claim the traceparent is written, on a replay the traces are read: two extra round
trips by design). Prints a table; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import NoOpTracerProvider

import actae.otel
from actae import SyncActaeClient, calls, observe
from actae.models import Claim, Execution


class _Discard(SpanExporter):
    def export(self, spans: Any) -> SpanExportResult:
        return SpanExportResult.SUCCESS


def _configure(name: str) -> None:
    if name == "none":
        observe.observer = None
    elif name == "logging":
        observe.observer = observe.Observer()
    elif name == "otel-noop":
        actae.otel.instrument(NoOpTracerProvider())
    else:
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(_Discard()))
        actae.otel.instrument(provider)


def _fake_claim() -> Claim:
    now = datetime.now(UTC)
    row = Execution.model_validate({
        "execution_id": uuid.uuid4(), "channel_id": "c", "key_name": "k", "tool_name": "t",
        "status": "completed", "claim_token": None, "fence": 1, "attempt": 1,
        "lease_expires_at": now, "params": {}, "fingerprint": "f", "result": 1,
        "lease_seconds": 60, "created_at": now, "claimed_at": now})
    return Claim(status="replayed", execution=row)


def hook_cost(client: SyncActaeClient, n: int) -> float:
    claim = _fake_claim()
    call = calls.claim_execution("c", "k", "t", {})
    # no I/O: the hook alone (a replayed claim; the trace read of otel-sdk finds nothing)
    client._run = lambda c: claim if c.sql == call.sql else []  # type: ignore[method-assign]
    started = time.perf_counter()
    for _ in range(n):
        client.run(call)
    return (time.perf_counter() - started) / n * 1e6


def cycle_cost(client: SyncActaeClient, n: int) -> tuple[float, float]:
    channel = f"bench-otel-{uuid.uuid4().hex[:8]}"
    started = time.perf_counter()
    for i in range(n):
        claim = client.claim_execution(channel, f"k{i}", "t", {"i": i})
        assert claim.claim_token is not None
        client.complete_execution(claim.execution.id, claim.claim_token, {"ok": i})
    cycle = (time.perf_counter() - started) / n * 1e6
    started = time.perf_counter()
    for i in range(n):
        client.claim_execution(channel, f"k{i}", "t", {"i": i})
    return cycle, (time.perf_counter() - started) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cycles", type=int, default=400)
    parser.add_argument("--hook-calls", type=int, default=50000)
    args = parser.parse_args()
    names = ["none", "logging", "otel-noop", "otel-sdk"]
    results: dict[str, dict[str, list[float]]] = {n: {"hook": [], "cycle": [], "replay": []}
                                                    for n in names}
    saved = observe.observer
    dsn = os.environ["ACTAE_DSN"]
    try:
        with SyncActaeClient(dsn, max_size=1) as client, \
                SyncActaeClient(dsn, max_size=1) as fake:
            for name in names:  # warm-up
                _configure(name)
                cycle_cost(client, 50)
            for _ in range(args.rounds):
                for name in names:
                    _configure(name)
                    results[name]["hook"].append(hook_cost(fake, args.hook_calls))
                    cycle, replay = cycle_cost(client, args.cycles)
                    results[name]["cycle"].append(cycle)
                    results[name]["replay"].append(replay)
    finally:
        observe.observer = saved
    median: Callable[[list[float]], float] = statistics.median
    base = results["none"]
    print(f"{'observer':<10} {'hook µs/call':>13} {'claim+complete µs':>18} {'vs none':>8}"
          f" {'replayed claim µs':>18} {'vs none':>8}")
    for name in names:
        r = results[name]
        cycle, replay = median(r["cycle"]), median(r["replay"])
        print(f"{name:<10} {median(r['hook']):>13.2f} {cycle:>18.0f}"
              f" {cycle / median(base['cycle']):>7.2f}x"
              f" {replay:>18.0f} {replay / median(base['replay']):>7.2f}x")


if __name__ == "__main__":
    main()
