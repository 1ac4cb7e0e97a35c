"""The LangGraph functions under real concurrent connections (threads, one connection each).

* Concurrent first puts of one new thread namespace agree on one channel, also when the
  thread id is too long for a readable channel name (each creator would draw its own uuid
  name without the advisory lock).
* The same pending write sent by several connections at once is recorded once.
* A put, put_writes or langgraph_channel that waits for a concurrent delete_thread starts
  the thread afresh once the delete commits (a new mapping and channel), instead of writing
  into the deleted channel, where nothing can see or delete it.
* Two thread namespaces that want the same channel name ('a:b' and '', 'a' and 'b'),
  created concurrently, get two channels (the later a uuid name), not a unique violation.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, LiteralString

import psycopg
import pytest
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


def _wait_until_blocked(conn: psycopg.Connection, pid: int) -> None:
    """Return once backend pid waits for a lock (fail after 10 s)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        row = conn.execute("select wait_event_type from pg_stat_activity where pid = %s",
                           (pid,)).fetchone()
        if row is not None and row[0] == "Lock":
            return
        time.sleep(0.02)
    raise AssertionError(f"backend {pid} never waited for a lock")


def _behind(dsn: str, conn: psycopg.Connection, hold: LiteralString,
            hold_args: tuple[Any, ...], call: LiteralString,
            call_args: tuple[Any, ...]) -> tuple[Any, ...]:
    """Run `call` on its own connection while another one holds `hold` uncommitted; commit
    that once `call` waits for it; return `call`'s row."""
    out: list[Any] = []
    errors: list[BaseException] = []
    with psycopg.connect(dsn) as holder, psycopg.connect(dsn, autocommit=True) as caller:
        holder.execute(hold, hold_args)

        def run() -> None:
            try:
                out.append(caller.execute(call, call_args).fetchone())
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        worker = threading.Thread(target=run)
        worker.start()
        try:
            _wait_until_blocked(conn, caller.info.backend_pid)
        finally:
            holder.commit()
            worker.join()
    assert not errors, errors
    return out[0]


PUT = "select channel_id from actae.langgraph_put(%s, '', 'cp-2', 'cp-1', %s, '{}')"
WRITES = ("select actae.langgraph_put_writes(%s, '', 'cp-1', 'task', '', %s),"
          " actae.langgraph_channel(%s) as channel_id")
CHANNEL = "select actae.langgraph_channel(%s) as channel_id"


@pytest.mark.parametrize("call", ["put", "put_writes", "langgraph_channel"])
def test_a_write_behind_a_delete_starts_the_thread_afresh(
    dsn: str, conn: psycopg.Connection, unique: Callable[[str], str], call: str
) -> None:
    thread_id = unique("lg-race")
    conn.execute("select actae.langgraph_put(%s, '', 'cp-1', null, %s, '{}')",
                 (thread_id, Jsonb({"id": "cp-1", "channel_values": {}})))
    calls: dict[str, tuple[LiteralString, tuple[Any, ...]]] = {
        "put": (PUT, (thread_id, Jsonb({"id": "cp-2", "channel_values": {}}))),
        "put_writes": (WRITES, (thread_id, Jsonb([
            {"idx": 0, "channel": "messages", "value": {"value": "hi"}}]), thread_id)),
        "langgraph_channel": (CHANNEL, (thread_id,)),
    }
    sql, args = calls[call]
    _behind(dsn, conn, "select actae.langgraph_delete_thread(%s)", (thread_id,), sql, args)
    mapped = conn.execute("select channel_id from actae.langgraph_threads"
                          " where thread_id = %s", (thread_id,)).fetchall()
    assert len(mapped) == 1, "the thread has a mapping again"
    stray = conn.execute(
        "select c.channel_id from actae.channels as c where c.channel_id like %s"
        " and not exists (select from actae.langgraph_threads as t"
        " where t.channel_id = c.channel_id)", ("langgraph:" + thread_id + "%",)).fetchall()
    assert stray == [], "no channel is left without a mapping"
    channel = conn.execute("select head_cursor from actae.get_channel(%s)",
                           (mapped[0][0],)).fetchone()
    assert channel == ({"put": 1, "put_writes": 1, "langgraph_channel": 0}[call],), (
        "what was written is in the mapped channel")
    if call == "put":
        latest = conn.execute("select checkpoint_id from actae.langgraph_get_tuple(%s, '')",
                              (thread_id,)).fetchone()
        assert latest == ("cp-2",), "the checkpoint is visible"
    if call == "put_writes":
        pending = conn.execute("select pending_writes from actae.langgraph_get_tuple"
                               "(%s, '', 'cp-1')", (thread_id,)).fetchall()
        assert pending == [], "the old checkpoint is gone (its write waits for it)"
        count = conn.execute("select count(*) from actae.langgraph_writes"
                             " where channel_id = %s", (mapped[0][0],)).fetchone()
        assert count == (1,), "the write is indexed under the new mapping"


def test_two_namespaces_wanting_one_channel_name_get_two_channels(
    dsn: str, conn: psycopg.Connection, unique: Callable[[str], str]
) -> None:
    thread_id = unique("lg-race")
    checkpoint = Jsonb({"id": "cp-1", "channel_values": {}})
    put = "select channel_id, outcome from actae.langgraph_put(%s, %s, 'cp-1', null, %s, '{}')"
    row = _behind(dsn, conn, put, (thread_id + ":b", "", checkpoint),
                  put, (thread_id, "b", checkpoint))
    assert row[1] == "transitioned"
    assert row[0].startswith("langgraph:") and row[0] != f"langgraph:{thread_id}:b", (
        "the later creator took a uuid name")
    mapped = conn.execute(
        "select thread_id, checkpoint_ns, channel_id from actae.langgraph_threads"
        " where thread_id in (%s, %s) order by thread_id", (thread_id, thread_id + ":b")
    ).fetchall()
    assert mapped == [(thread_id, "b", row[0]), (thread_id + ":b", "", f"langgraph:{thread_id}:b")]


def test_purge_skips_a_thread_whose_mapping_a_writer_holds(
    dsn: str, conn: psycopg.Connection, unique: Callable[[str], str]
) -> None:
    """A put holds the thread's mapping (FOR KEY SHARE) and waits for the channel's lock
    (here held by another transaction: the channel's clock guard). A purge that meets the
    closed, quiet channel meanwhile skips it at once: it neither waits for the mapping
    (nor deadlocks with the put once the channel frees) nor deletes any of it."""
    thread_id = unique("lg-purge")
    conn.execute("select actae.langgraph_put(%s, '', 'cp-1', null, %s, '{}')",
                 (thread_id, Jsonb({"id": "cp-1", "channel_values": {}})))
    row = conn.execute("select channel_id from actae.langgraph_threads where thread_id = %s",
                       (thread_id,)).fetchone()
    assert row is not None
    channel = row[0]
    conn.execute("select actae.close_channel(%s)", (channel,))
    # Closed and quiet for 200 years: the only candidate of a purge of what is 100 years old.
    conn.execute("update actae.channels set closed_at = now() - interval '200 years'"
                 " where channel_id = %s", (channel,))
    conn.execute("update actae.events set recorded_at = now() - interval '200 years'"
                 " where channel_id = %s", (channel,))
    out: list[Any] = []
    errors: list[BaseException] = []
    with psycopg.connect(dsn) as holder, psycopg.connect(dsn, autocommit=True) as writer:
        holder.execute("select pg_advisory_xact_lock(hashtextextended(%s, 1633907811))", (channel,))

        def put() -> None:
            try:
                out.append(writer.execute(
                    "select channel_id, outcome from actae.langgraph_put(%s, '', 'cp-2',"
                    " 'cp-1', %s, '{}')",
                    (thread_id, Jsonb({"id": "cp-2", "channel_values": {}}))).fetchone())
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        worker = threading.Thread(target=put)
        worker.start()
        try:
            _wait_until_blocked(conn, writer.info.backend_pid)
            free = conn.execute("select 1 from actae.langgraph_threads where channel_id = %s"
                                " for update skip locked", (channel,)).fetchall()
            assert free == [], "the put holds the mapping while it waits for the channel"
            started = time.monotonic()
            try:
                purged = conn.execute(
                    "select channels, events from actae.purge('100 years', 100000)").fetchone()
            finally:
                waited = time.monotonic() - started
        finally:
            holder.commit()
            worker.join()
    assert waited < 2, f"purge waited {waited:.1f} s for the writer's mapping"
    assert purged == (0, 0), "nothing of the thread's channel was deleted"
    assert not errors, errors
    assert out == [(channel, "transitioned")], "the put went on into the same channel"
    count = conn.execute("select count(*) from actae.langgraph_checkpoints"
                         " where channel_id = %s", (channel,)).fetchone()
    assert count == (2,), "both checkpoints are indexed in the thread's channel"
