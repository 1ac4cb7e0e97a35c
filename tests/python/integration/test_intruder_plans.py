"""Intruder suite, plans (issue 14 F14): one `list_executions(null, …)` call early in a
session must not leave `list_executions(channel, …)` with a plan that scans every channel.

PL/pgSQL caches one plan per statement; after five executions PostgreSQL may switch it to a
generic plan. When the all-channels and one-channel listings shared a statement
(`p_channel_id is null or channel_id = p_channel_id`), the generic plan chosen for the
all-channels calls had no index condition on channel_id, and every later one-channel call
in that session read the whole table. auto_explain (nested statements, sent to the client
as LOG messages) shows the plan each call really ran.
"""

from __future__ import annotations

import psycopg
import pytest
from psycopg.errors import Diagnostic


def _plans(conn: psycopg.Connection, query: str, times: int) -> list[str]:
    """The auto_explain plans of the nested statements `query` ran, over `times` calls."""
    seen: list[str] = []

    def keep(diag: Diagnostic) -> None:
        if diag.severity_nonlocalized == "LOG" and diag.message_primary:
            seen.append(diag.message_primary)

    conn.add_notice_handler(keep)
    try:
        for _ in range(times):
            conn.execute(query).fetchall()
    finally:
        conn.remove_notice_handler(keep)
    return [p for p in seen if "actae.executions" in p or "executions e" in p]


def test_one_channel_listing_keeps_its_index_after_all_channel_calls(
    conn: psycopg.Connection, unique: object
) -> None:
    try:
        conn.execute("load 'auto_explain'")
    except psycopg.errors.UndefinedFile:
        pytest.skip("auto_explain is not installed on this server")
    prefix = unique("plan")  # type: ignore[operator]
    with conn.transaction(force_rollback=True):
        conn.execute(
            "select actae.claim_execution(%s || '-' || (i %% 200), 'k' || i, 'tool', '{}')"
            " from generate_series(1, 4000) as i",
            (prefix,),
        )
        conn.execute("set local auto_explain.log_min_duration = 0")
        conn.execute("set local auto_explain.log_nested_statements = on")
        conn.execute("set local client_min_messages = log")
        # The planner would rather read the table when it is small; an index is what a
        # one-channel listing on a large ledger must use, so make the choice visible.
        conn.execute("set local enable_seqscan = off")
        conn.execute("set local enable_bitmapscan = off")
        all_channels = _plans(conn, "select * from actae.list_executions(null, null, false, 5)", 8)
        assert all_channels, "auto_explain reported no plan for list_executions"
        one = _plans(conn, f"select * from actae.list_executions('{prefix}-7', null, false, 5)", 8)
        assert len(one) == 8
        for plan in one:
            assert "Index Cond: (channel_id = " in plan, plan
        # Forcing the generic plan (what the plan cache switches to) keeps the index too.
        conn.execute("set local plan_cache_mode = force_generic_plan")
        generic = _plans(
            conn, f"select * from actae.list_executions('{prefix}-9', null, false, 5)", 2
        )
        assert generic and all("Index Cond: (channel_id = " in p for p in generic), generic
