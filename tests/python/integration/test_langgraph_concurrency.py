"""The LangGraph functions under real concurrent connections (threads, one connection each).

* Concurrent first puts of one new thread namespace agree on one channel, also when the
  thread id is too long for a readable channel name (each creator would draw its own uuid
  name without the advisory lock).
* The same pending write sent by several connections at once is recorded once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

WORKERS = 8


def _together(dsn: str, work: Callable[[psycopg.Connection[Any], int], None]) -> None:
    barrier = threading.Barrier(WORKERS)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            with psycopg.connect(dsn, autocommit=True) as conn:
                barrier.wait()
                work(conn, i)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(WORKERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_first_puts_agree_on_one_channel(dsn: str, conn: psycopg.Connection, unique) -> None:
    for thread_id in (unique("lg-race"), unique("lg-race") + "x" * 300):
        def put(c: psycopg.Connection[Any], i: int, thread_id: str = thread_id) -> None:
            c.execute("select actae.langgraph_put(%s, '', %s, null, %s, '{}')",
                      (thread_id, f"cp-{i}", Jsonb({"channel_values": {}})))

        _together(dsn, put)
        rows = conn.execute("select channel_id from actae.langgraph_threads"
                            " where thread_id = %s", (thread_id,)).fetchall()
        assert len(rows) == 1, rows
        count = conn.execute("select count(*) from actae.langgraph_list(%s)",
                             (thread_id,)).fetchone()
        assert count == (WORKERS,)
        head = conn.execute("select head_cursor from actae.get_channel(%s)",
                            (rows[0][0],)).fetchone()
        assert head == (WORKERS,), "every put is one event of that one channel"


def test_concurrent_retries_of_a_write_record_it_once(
    dsn: str, conn: psycopg.Connection, unique
) -> None:
    thread_id = unique("lg-race")
    conn.execute("select actae.langgraph_put(%s, '', 'cp-1', null, %s, '{}')",
                 (thread_id, Jsonb({"channel_values": {}})))
    writes = Jsonb([{"idx": 0, "channel": "messages", "value": {"value": "hi"}}])
    recorded: list[int] = []

    def write(c: psycopg.Connection[Any], i: int) -> None:
        row = c.execute("select actae.langgraph_put_writes(%s, '', 'cp-1', 'task', '', %s)",
                        (thread_id, writes)).fetchone()
        assert row is not None
        recorded.append(row[0])

    _together(dsn, write)
    assert sorted(recorded) == [0] * (WORKERS - 1) + [1]
    pending = conn.execute("select pending_writes from actae.langgraph_get_tuple(%s, '')",
                           (thread_id,)).fetchone()
    assert pending == ([["task", "messages", {"value": "hi"}]],)
