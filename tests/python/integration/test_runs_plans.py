"""claim_run reaches the next due run through the (queue, due_at, channel_id) index, whatever
the size of the table: no sequential scan of actae.runs in the plans claim_run actually
executes, and, with or without statistics, no sort of the due runs (the index returns them
in the claim's order; migration 0018).

The plans come from auto_explain loaded into the test's own session (log_nested_statements
on, log_level notice, JSON format), so they are the plans the PL/pgSQL function runs,
including its cached generic plan after the fifth call. Inside one rolled-back transaction
the test first inserts 20 000 runs (most of them finished, due later or in other queues,
like a busy table) and runs ANALYZE; a control drops the index and checks that the
detector then sees a Seq Scan, so a green run proves the check can fail. Needs a superuser
(LOAD), as in `make test`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

ROWS = 20000

LOAD = """
insert into actae.runs (channel_id, agent, queue, input, status, due_at, wake_reason,
    max_attempts, created_at, result, finished_at)
select %(prefix)s || i, 'agent',
    case when i %% 4 = 0 then %(queue)s else %(prefix)s || 'other-' || (i %% 50) end,
    '{}',
    case when i %% 3 = 0 then 'completed' else 'queued' end,
    case when i %% 3 = 0 then null
        else clock_timestamp() + make_interval(secs => i %% 1000 - 10) end,
    'start', 5, clock_timestamp(),
    case when i %% 3 = 0 then '1'::jsonb end,
    case when i %% 3 = 0 then clock_timestamp() end
from generate_series(1, %(rows)s) as i
"""


def _nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from _nodes(child)


class Plans:
    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn
        self.plans: list[dict[str, Any]] = []
        conn.add_notice_handler(self._notice)

    def _notice(self, diag: psycopg.errors.Diagnostic) -> None:
        text = diag.message_primary or ""
        if "plan:" in text:
            self.plans.append(json.loads(text.split("plan:", 1)[1])["Plan"])

    def scans(self, sql: str, params: Any = None) -> list[tuple[str, str | None]]:
        """(node type, index) of every scan of actae.runs while sql runs."""
        self.plans = []
        self.conn.execute(sql, params).fetchall()
        return [(n["Node Type"], n.get("Index Name")) for p in self.plans for n in _nodes(p)
                if n.get("Relation Name") == "runs"]


@pytest.fixture
def loaded(dsn: str, unique: Any, request: pytest.FixtureRequest) -> Iterator[tuple[Plans, str]]:
    with psycopg.connect(dsn) as conn:  # one transaction, rolled back on exit
        conn.execute("load 'auto_explain'")
        for setting, value in (("log_nested_statements", "on"), ("log_format", "json"),
                               ("log_level", "notice"), ("log_min_duration", "-1")):
            conn.execute(f"set local auto_explain.{setting} = '{value}'")
        conn.execute("set local client_min_messages = notice")
        prefix = unique("runplans") + "-"
        queue = prefix + "q"
        conn.execute(LOAD, {"prefix": prefix, "queue": queue, "rows": ROWS})
        if getattr(request, "param", True):
            conn.execute("analyze actae.runs")
        conn.execute("set local auto_explain.log_min_duration = 0")
        yield Plans(conn), queue
        conn.rollback()


@pytest.mark.parametrize("loaded", [True, False], ids=["analyzed", "no statistics"],
                         indirect=True)
def test_claim_run_uses_the_due_index(loaded: tuple[Plans, str]) -> None:
    p, queue = loaded
    for i in range(8):  # past the fifth call: the cached generic plan is checked too
        agents = None if i % 2 else ["agent"]
        scans = p.scans("select * from actae.claim_run(%s, 'w', %s)", (queue, agents))
        assert scans, "auto_explain reported no plans"
        assert ("Seq Scan", None) not in scans, scans
        assert {("Index Scan", "runs_due_order_idx"),
                ("Index Only Scan", "runs_due_order_idx")} & set(scans), scans
        assert not _sorts(p), p.plans


def test_detector_sees_a_sequential_scan_without_the_index(loaded: tuple[Plans, str]) -> None:
    p, queue = loaded
    p.conn.execute("drop index actae.runs_due_order_idx")
    scans = p.scans("select * from actae.claim_run(%s, 'w')", (queue,))
    assert ("Seq Scan", None) in scans, scans


@pytest.mark.parametrize("loaded", [False], ids=["no statistics"], indirect=True)
def test_detector_sees_the_sort_of_the_former_plans(loaded: tuple[Plans, str]) -> None:
    """Control for the sort check: as claim_run ran before migration 0018 (the (queue,
    due_at) index, bitmap scans allowed), the plan sorts the due runs."""
    p, queue = loaded
    p.conn.execute("alter function actae.claim_run(text, text, text[], integer)"
                   " reset enable_bitmapscan")
    p.conn.execute("drop index actae.runs_due_order_idx")
    p.conn.execute("create index runs_due_idx on actae.runs (queue, due_at)"
                   " where due_at is not null")
    p.scans("select * from actae.claim_run(%s, 'w')", (queue,))
    assert _sorts(p), p.plans


def _sorts(p: Plans) -> list[tuple[str, str]]:
    """(sort node, what it sorts) of every sort in the plans of the last call."""
    return [(n["Node Type"], n["Plans"][0]["Node Type"]) for plan in p.plans
            for n in _nodes(plan) if n["Node Type"] in ("Sort", "Incremental Sort")]
