"""Intruder suite, limits (issue 14 F6, F7, F10): no argument gets past a size limit by
arriving compressed, no list or map an agent passes is unbounded, no error DETAIL echoes an
unbounded input, and no JSON is stored nested deeper than the driver can read back.
"""

from __future__ import annotations

from collections.abc import Callable

import psycopg
import pytest


def _error(conn: psycopg.Connection, query: str, args: tuple[object, ...]) -> psycopg.Error:
    with conn.transaction(force_rollback=True), pytest.raises(psycopg.Error) as caught:
        conn.execute(query.encode(), args)
    return caught.value


def _claim_rows(conn: psycopg.Connection, channel: str) -> int:
    row = conn.execute(
        "select count(*) from actae.list_executions(%s, null, false, 10)", (channel,)
    ).fetchone()
    return int(row[0]) if row else -1


def test_compressed_params_are_measured_by_their_real_size(
    conn: psycopg.Connection, unique: Callable[[str], str]
) -> None:
    """F6: 8 MiB of params read from a compressed column (pg_column_size a few kB) is AC400."""
    channel = unique("f6")
    conn.execute("create temp table if not exists f6_big (v jsonb)")
    conn.execute("truncate f6_big")
    conn.execute("insert into f6_big select jsonb_build_object('x', repeat('a', 8388608))")
    stored = conn.execute("select pg_column_size(v) from f6_big").fetchone()
    assert stored and stored[0] < 1048576, "the attack needs a value stored compressed"
    err = _error(
        conn,
        "select actae.claim_execution(%s, 'k', 'charge', (select v from f6_big))",
        (channel,),
    )
    assert err.sqlstate == "AC400", err
    assert err.diag.message_primary == "params must be at most 1048576 bytes of JSON"
    assert _claim_rows(conn, channel) == 0
    # The result of a completion, and an event payload, are measured the same way.
    claim = conn.execute(
        "select execution_id, claim_token from actae.claim_execution(%s, 'k2', 't', '{}')",
        (channel,),
    ).fetchone()
    assert claim
    err = _error(
        conn,
        "select actae.complete_execution(%s, %s, (select v from f6_big))",
        (claim[0], claim[1]),
    )
    assert err.sqlstate == "AC400" and "result" in (err.diag.message_primary or "")
    err = _error(
        conn,
        "select actae.record_event(%s, 'big', (select v from f6_big))",
        (channel,),
    )
    assert err.sqlstate == "AC400" and "payload" in (err.diag.message_primary or "")


def test_dedup_fields_are_bounded_and_not_echoed(
    conn: psycopg.Connection, unique: Callable[[str], str]
) -> None:
    """F7: a tiny call naming 2 M dedup_fields gets a small AC400, not a 200 MB DETAIL."""
    channel = unique("f7")
    err = _error(
        conn,
        "select actae.claim_execution(%s, 'k', 't', '{\"a\": 1}',"
        " array_fill('x'::text, array[2000000]))",
        (channel,),
    )
    assert err.sqlstate == "AC400", err
    assert "dedup_fields" in (err.diag.message_primary or "")
    assert len(err.diag.message_detail or "") < 1000
    # A long field name is refused too, and its DETAIL does not carry it.
    err = _error(
        conn,
        "select actae.claim_execution(%s, 'k', 't', '{\"a\": 1}', array[repeat('y', 100000)])",
        (channel,),
    )
    assert err.sqlstate == "AC400", err
    assert len(err.diag.message_detail or "") < 1000
    # Missing fields: the DETAIL names the first few and counts the rest.
    err = _error(
        conn,
        "select actae.claim_execution(%s, 'k', 't', '{\"a\": 1}',"
        " array(select 'f' || i from generate_series(1, 60) as i))",
        (channel,),
    )
    assert err.sqlstate == "AC400", err
    assert len(err.diag.message_detail or "") < 1000
    assert _claim_rows(conn, channel) == 0


def test_tool_policies_are_bounded_and_not_echoed(
    conn: psycopg.Connection, unique: Callable[[str], str]
) -> None:
    """F7: a 500 000-entry policy map is refused, with a DETAIL of sizes only."""
    source = unique("f7src")
    conn.execute("select actae.create_channel(%s)", (source,))
    err = _error(
        conn,
        "select actae.fork_channel(%s, 0, %s, null,"
        " (select jsonb_object_agg('tool' || i, 'live') from generate_series(1, 500000) as i))",
        (source, unique("f7fork")),
    )
    assert err.sqlstate == "AC400", err
    assert "tool_policies" in (err.diag.message_primary or "")
    assert len(err.diag.message_detail or "") < 1000
    # An invalid map is not echoed either.
    err = _error(
        conn,
        "select actae.fork_channel(%s, 0, %s, null,"
        " (select jsonb_object_agg('tool' || i, 'nope') from generate_series(1, 5000) as i))",
        (source, unique("f7fork")),
    )
    assert err.sqlstate == "AC400", err
    assert len(err.diag.message_detail or "") < 1000


@pytest.mark.parametrize("kind", ["array", "object"])
def test_deep_json_is_refused(
    conn: psycopg.Connection, unique: Callable[[str], str], kind: str
) -> None:
    """F10: a 5 000-level payload would make every reader's driver fail; AC400 instead, and
    the deepest accepted value (the limit) reads back through psycopg."""
    channel = unique("f10")
    conn.execute("select actae.create_channel(%s)", (channel,))

    def nested(depth: int) -> str:
        if kind == "array":
            return "[" * depth + "]" * depth
        return '{"a":' * (depth - 1) + "{}" + "}" * (depth - 1)

    err = _error(conn, "select actae.record_event(%s, 'deep', %s::jsonb)", (channel, nested(5000)))
    assert err.sqlstate == "AC400", err
    assert "nested" in (err.diag.message_primary or "")
    err = _error(conn, "select actae.record_event(%s, 'deep', %s::jsonb)", (channel, nested(513)))
    assert err.sqlstate == "AC400", err
    conn.execute("select actae.record_event(%s, 'ok', %s::jsonb)", (channel, nested(512)))
    rows = conn.execute("select payload from actae.list_events(%s, 0, 10)", (channel,)).fetchall()
    assert len(rows) == 1 and rows[0][0] is not None
