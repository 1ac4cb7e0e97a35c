"""The hot paths stay index paths as the ledger grows: no sequential scans in the plans that
claim_execution, complete_execution and list_events actually execute.

How the plans are obtained: auto_explain, loaded into the test's own session with
log_nested_statements on and log_level = notice, reports (as JSON notices to this client) the
plan of every statement the PL/pgSQL functions run, exactly as they run it, including cached
generic plans. EXPLAIN on hand-copied SQL would test a copy that can drift from the functions.
auto_explain needs LOAD, so the test role must be a superuser (it is in `make test`).

Why the assertion means something: on a tiny table a sequential scan is the planner's right
choice, so "no Seq Scan" would hold or fail for reasons unrelated to indexing. Inside one
transaction (rolled back at the end, so the shared test database is left untouched) the test
first bulk-inserts 20 000 channels, 20 000 executions across 200 of them and a 20 000-event
channel and runs ANALYZE; at that size a lookup without a usable index plans as a Seq Scan.
Several calls per function are checked, so PL/pgSQL's cached generic plans are covered too.
A control case drops the execution_id index inside the same transaction and checks that the
detector then sees complete_execution fall back to a Seq Scan: a green run proves the check
can fail. The rows and column statistics roll back; only pg_class's size estimate, which
ANALYZE writes in place, stays until the next (auto)analyze.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

from tests.python.support.databases import fresh_database

ROWS = 20000
ACTAE_TABLES = {"executions", "events", "channels", "snapshots", "operations"}

LOAD = [
    """insert into actae.channels (channel_id)
       select %(prefix)s || g from generate_series(0, %(rows)s - 1) as g""",
    """insert into actae.executions (
           channel_id, key_name, execution_id, tool_name, params, fingerprint, status,
           claim_token, fence, attempt, lease_seconds, lease_expires_at, result,
           completed_clock, created_at, claimed_at, finished_at)
       select %(prefix)s || (i %% 200), 'k' || i, gen_random_uuid(), 'search', '{"q": 1}',
           encode(sha256(convert_to('{"q": 1}', 'UTF8')), 'hex'), 'completed',
           gen_random_uuid(), 1, 1, 60, now(), '{"ok": true}', 0, now(), now(), now()
       from generate_series(1, %(rows)s) as i""",
    """insert into actae.channels (channel_id, head_cursor, clock)
       values (%(prefix)s || 'log', %(rows)s, %(rows)s)""",
    """insert into actae.events (channel_id, cursor, event_type, payload, clock, chain_sha256,
           recorded_at)
       select %(prefix)s || 'log', i, 'step', jsonb_build_object('i', i), i, md5(i::text),
           now()
       from generate_series(1, %(rows)s) as i""",
    "analyze actae.channels",
    "analyze actae.executions",
    "analyze actae.events",
]


class Plans:
    """Collects the JSON plans auto_explain reports while a block of calls runs."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn
        self.plans: list[dict[str, Any]] = []
        self.rows: list[Any] = []
        conn.add_notice_handler(self._notice)

    def _notice(self, diag: psycopg.errors.Diagnostic) -> None:
        text = diag.message_primary or ""
        if "plan:" in text:
            self.plans.append(json.loads(text.split("plan:", 1)[1])["Plan"])

    def collect(self, sql: str, params: Any = None) -> list[dict[str, Any]]:
        self.plans = []
        self.rows = self.conn.execute(sql, params).fetchall()
        return list(self.plans)


def _nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from _nodes(child)


def _scans(plans: list[dict[str, Any]]) -> list[tuple[str, str, str | None]]:
    """(node type, relation, index) of every scan of an Actae table."""
    return [
        (node["Node Type"], node["Relation Name"], node.get("Index Name"))
        for plan in plans for node in _nodes(plan)
        if node.get("Relation Name") in ACTAE_TABLES
    ]


def _seq_scans(plans: list[dict[str, Any]]) -> list[tuple[str, str, str | None]]:
    return [scan for scan in _scans(plans) if scan[0] == "Seq Scan"]


@pytest.fixture
def plans(dsn: str, unique: Any) -> Iterator[tuple[Plans, str]]:
    with psycopg.connect(dsn) as conn:  # one transaction, rolled back on exit
        conn.execute("load 'auto_explain'")
        for setting, value in (("log_min_duration", "0"), ("log_nested_statements", "on"),
                               ("log_format", "json"), ("log_level", "notice")):
            conn.execute(f"set local auto_explain.{setting} = '{value}'")
        conn.execute("set local client_min_messages = notice")
        prefix = unique("plans") + "-"
        conn.execute("set local auto_explain.log_min_duration = -1")
        for statement in LOAD:
            conn.execute(statement, {"prefix": prefix, "rows": ROWS})
        conn.execute("set local auto_explain.log_min_duration = 0")
        yield Plans(conn), prefix
        conn.rollback()


def _claim_and_complete(p: Plans, channel: str, key: str) -> tuple[list[Any], list[Any]]:
    claim = p.collect(
        "select * from actae.claim_execution(%s, %s, 'search', %s)",
        (channel, key, Jsonb({"q": key})),
    )
    row = p.conn.execute(
        "select execution_id, claim_token from actae.executions"
        " where channel_id = %s and key_name = %s", (channel, key),
    ).fetchone()
    assert row is not None
    complete = p.collect(
        "select * from actae.complete_execution(%s, %s, '{\"ok\": true}')", (row[0], row[1])
    )
    return claim, complete


def test_claim_and_complete_use_index_paths(plans: tuple[Plans, str]) -> None:
    p, prefix = plans
    # Several calls, so PL/pgSQL's cached generic plans (after the fifth) are checked too.
    for i in range(8):
        claim, complete = _claim_and_complete(p, prefix + "7", f"new-{i}")
        assert claim and complete, "auto_explain reported no plans"
        assert _seq_scans(claim) == [], _scans(claim)
        assert _seq_scans(complete) == [], _scans(complete)
    assert ("Index Scan", "executions", "executions_execution_id_channel_idx") in _scans(complete)
    assert any(s[1] == "channels" and s[0].startswith("Index") for s in _scans(claim))
    # Replay (claim of a completed key) reads the row by its primary key.
    for key in range(1000, 1006):
        replay = p.collect(
            "select * from actae.claim_execution(%s, %s, 'search', %s)",
            (prefix + str(key % 200), f"k{key}", Jsonb({"q": 1})),
        )
        assert p.rows[0][0] == "replayed", p.rows
        assert _seq_scans(replay) == [], _scans(replay)
        assert any(s[1] == "executions" and s[0].startswith("Index") for s in _scans(replay))


def test_list_events_uses_index_paths(plans: tuple[Plans, str]) -> None:
    p, prefix = plans
    channel = prefix + "log"
    for after in (0, ROWS // 2, ROWS - 50, 0, ROWS // 3, 10, 100):
        listed = p.collect("select * from actae.list_events(%s, %s, 100)", (channel, after))
        assert _seq_scans(listed) == [], _scans(listed)
        assert ("Index Scan", "events", "events_pkey") in _scans(listed)
    fork = p.conn.execute(
        "select channel_id from actae.fork_channel(%s, %s)", (channel, ROWS // 2)
    ).fetchone()
    assert fork is not None
    listed = p.collect("select * from actae.list_events(%s, %s, 100)", (fork[0], ROWS // 4))
    assert _seq_scans(listed) == [], _scans(listed)


def test_detector_sees_a_sequential_scan_without_the_index(plans: tuple[Plans, str]) -> None:
    """Control: with the execution_id index gone, complete_execution must plan a Seq Scan —
    otherwise the assertions above could never fail."""
    p, prefix = plans
    p.conn.execute("drop index actae.executions_execution_id_channel_idx")
    _, complete = _claim_and_complete(p, prefix + "9", "control")
    assert ("Seq Scan", "executions", None) in _scans(complete)


def _complete_in_one_channel_without_statistics(dsn: str, channel: str,
                                                index: str) -> list[str]:
    """Node types of complete_execution's plans (channel given, generic plans included) in a
    channel of 400 keys, with actae.executions' statistics removed as before its first
    ANALYZE and `index` as the only lookup index. One rolled-back transaction."""
    with psycopg.connect(dsn) as conn:
        conn.execute("load 'auto_explain'")
        for setting, value in (("log_nested_statements", "on"), ("log_format", "json"),
                               ("log_level", "notice"), ("log_min_duration", "-1")):
            conn.execute(f"set local auto_explain.{setting} = '{value}'")
        conn.execute("set local client_min_messages = notice")
        conn.execute("drop index actae.executions_execution_id_channel_idx")
        conn.execute(f"create index plans_lookup_idx on actae.executions {index}")
        conn.execute("delete from pg_statistic where starelid = 'actae.executions'::regclass")
        conn.execute("update pg_class set reltuples = -1, relpages = 0"
                     " where oid = 'actae.executions'::regclass")
        conn.execute(
            """select actae.complete_execution(c.execution_id, c.claim_token, '{}', %s)
               from generate_series(1, 400) as g,
                   lateral actae.claim_execution(%s, 'k' || g, 'search', '{}') as c""",
            (channel, channel))
        p = Plans(conn)
        conn.execute("set local auto_explain.log_min_duration = 0")
        nodes: list[str] = []
        for i in range(8):
            row = conn.execute("select execution_id, claim_token from"
                               " actae.claim_execution(%s, %s, 'search', '{}')",
                               (channel, f"n{i}")).fetchone()
            assert row is not None
            complete = p.collect("select execution_id, status from"
                                 " actae.complete_execution(%s, %s, '{}', %s)",
                                 (row[0], row[1], channel))
            assert p.rows[0] == (row[0], "completed")
            nodes += [node["Node Type"] + ":" + str(node.get("Index Name"))
                      for plan in complete for node in _nodes(plan)]
        conn.rollback()
    return nodes


def test_complete_reads_one_row_before_the_first_analyze(dsn: str, unique: Any) -> None:
    """Before actae.executions has statistics, completing one execution of a channel reads
    that row through the (execution_id, channel_id) index, not every key of the channel
    (migration 0017). Control: with the former execution_id-only index, the same calls plan
    a BitmapAnd with the primary key's channel_id prefix — the case the test exists for."""
    nodes = _complete_in_one_channel_without_statistics(
        dsn, unique("nostats"), "(execution_id, channel_id)")
    assert "Index Scan:plans_lookup_idx" in nodes, nodes
    assert not [n for n in nodes if n.startswith(("BitmapAnd", "Bitmap", "Seq Scan"))], nodes
    control = _complete_in_one_channel_without_statistics(
        dsn, unique("nostats"), "(execution_id)")
    assert "BitmapAnd:None" in control, control


BY_KEY = "e.execution_id = p_execution_ids[i]"


def _batch_completion_scans(dsn: str, by_any: bool) -> list[str]:
    """The executions scans of complete_executions' plans (channel given) once its channel
    holds 20 000 keys, in a fresh database (no statistics) where the session's first batch
    found the table empty. by_any: the function as shipped but for its UPDATE finding the
    element's row by "execution_id = any(p_execution_ids)" (the token still picks the one
    row) instead of by its own id. One rolled-back transaction."""
    with fresh_database(dsn, "actae_plans") as scratch, psycopg.connect(scratch) as conn:
        if by_any:
            row = conn.execute("select pg_get_functiondef('actae.complete_executions(uuid[],"
                               " uuid[], jsonb[], text)'::regprocedure)").fetchone()
            assert row is not None and row[0].count(BY_KEY) == 1, "the control needs BY_KEY"
            conn.execute(row[0].replace(BY_KEY, "e.execution_id = any(p_execution_ids)"))
        conn.execute("load 'auto_explain'")
        for setting, value in (("log_nested_statements", "on"), ("log_format", "json"),
                               ("log_level", "notice"), ("log_min_duration", "-1")):
            conn.execute(f"set local auto_explain.{setting} = '{value}'")
        conn.execute("set local client_min_messages = notice")
        batch = """select array_agg(c.execution_id), array_agg(c.claim_token)
                   from actae.claim_executions('plans', array(select %s || g
                       from generate_series(1, 8) as g), array_fill('t'::text, array[8]),
                       array_fill('{}'::jsonb, array[8])) as c"""
        p, done = Plans(conn), []
        for n in range(2):
            ids = conn.execute(batch, (f"b{n}-",)).fetchone()
            assert ids is not None
            if n == 1:
                conn.execute(LOAD[1].replace("%(prefix)s || (i %% 200)", "'plans'"),
                             {"rows": ROWS})
                conn.execute("set local auto_explain.log_min_duration = 0")
            done = p.collect("select status from actae.complete_executions(%s, %s, null,"
                             " 'plans')", (ids[0], ids[1]))
            assert [r[0] for r in p.rows] == ["completed"] * 8
        conn.rollback()
    return [f"{n['Node Type']}:{n.get('Index Name')}" for plan in done for n in _nodes(plan)
            if "Scan" in n["Node Type"] and n.get("Relation Name", "executions") == "executions"
            and "Function" not in n["Node Type"] and "CTE" not in n["Node Type"]]


def test_batch_completion_reads_its_rows_as_the_channel_grows(dsn: str) -> None:
    """complete_executions with channel_id finds each row through the (execution_id,
    channel_id) index once the channel holds 20 000 keys, although it runs with generic
    plans (sql/12_batch.sql) and the session's first batch planned it on an empty table:
    its UPDATE names both columns of that index, one element at a time. Control: finding
    the rows by "execution_id = any(...)" instead, the generic plan made for the empty table
    reads every key of the channel through the primary key's channel_id prefix, for as long
    as the plan lives — on PostgreSQL 15 and 16. From 17 on, a B-tree scan takes a whole
    array in one descent and is costed so; on 18 (the embedded server's) the same generic
    plan reads the two-column index, so there the control asserts that instead."""
    scans = _batch_completion_scans(dsn, by_any=False)
    both = ["Index Scan:executions_execution_id_channel_idx"] * 8
    assert scans == both, scans
    with psycopg.connect(dsn) as conn:
        version = conn.info.server_version
    control = _batch_completion_scans(dsn, by_any=True)
    assert control == (both if version >= 170000 else ["Index Scan:executions_pkey"] * 8), \
        (version, control)
