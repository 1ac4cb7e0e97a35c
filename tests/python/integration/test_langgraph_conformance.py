"""LangGraph's own conformance suite (langgraph-checkpoint-conformance) against Actae's savers.

Every base capability (put, put_writes, get_tuple, list, delete_thread) and every extended
one (copy_thread, prune, delete_for_runs) must be detected and pass. The report is printed
(run pytest with -s, or read it in the captured output of a failure).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.capabilities import (
    BASE_CAPABILITIES,
    EXTENDED_CAPABILITIES,
)
from langgraph.checkpoint.conformance.report import ProgressCallbacks

from actae.langgraph import ActaeSaver, AsyncActaeSaver


def _check(report: Any) -> None:
    report.print_report()
    for capability in sorted(BASE_CAPABILITIES | EXTENDED_CAPABILITIES, key=lambda c: c.value):
        result = report.results[capability.value]
        assert result.detected, f"{capability.value} is not implemented"
        assert result.passed is True, f"{capability.value} failed: {result.failures}"
        assert result.tests_passed > 0 and result.tests_failed == 0
    assert report.conformance_level() == "FULL"


def test_async_saver_passes_langgraph_conformance(dsn: str) -> None:
    @checkpointer_test(name="AsyncActaeSaver")
    async def factory() -> AsyncIterator[AsyncActaeSaver]:
        async with AsyncActaeSaver.from_conn_string(dsn) as saver:
            yield saver

    report = asyncio.run(validate(factory, progress=ProgressCallbacks.verbose()))
    _check(report)


def test_sync_saver_passes_langgraph_conformance(dsn: str) -> None:
    @checkpointer_test(name="ActaeSaver")
    async def factory() -> AsyncIterator[ActaeSaver]:
        with ActaeSaver.from_conn_string(dsn) as saver:
            yield saver

    report = asyncio.run(validate(factory, progress=ProgressCallbacks.default()))
    _check(report)
