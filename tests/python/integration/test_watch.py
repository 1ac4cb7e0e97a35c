"""client.watch: catch up from the table, then follow new events as they commit.

Writers are real threads on their own connections, writing before the watch starts, while
it catches up (small pages make the catch-up many round trips) and while it waits for
NOTIFY. The watchers poll only every 60 s, so a missed notification would stall them past
the time bound instead of being papered over by polling.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from contextlib import aclosing
from typing import Any

import psycopg
import pytest

from actae import ActaeClient, InvalidInput, SyncActaeClient, calls
from tests.python.support.helpers import run

POLL = 60.0  # longer than the test's time bound: progress must come from NOTIFY


def start_writers(
    dsn: str, channel: str, go: threading.Event, writers: int, per_writer: int, pause: float
) -> tuple[list[threading.Thread], list[BaseException]]:
    errors: list[BaseException] = []

    def write(w: int) -> None:
        try:
            with SyncActaeClient(dsn, max_size=1) as client:
                go.wait(timeout=10)
                for i in range(per_writer):
                    client.record_event(channel, "live", {"w": w, "i": i})
                    if pause and i >= per_writer // 2:
                        time.sleep(pause)  # the second half lands while watchers wait
        except BaseException as exc:  # surfaced by the test
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    return threads, errors


async def watch_until(
    client: ActaeClient, channel: str, last: int, after_cursor: int = 0, page_size: int = 1000,
    started: threading.Event | None = None,
) -> list[int]:
    seen: list[int] = []
    stream = client.watch(channel, after_cursor, page_size=page_size, poll_seconds=POLL)
    async with aclosing(stream):
        if started is not None:
            started.set()
        async for event in stream:
            seen.append(event.cursor)
            if event.cursor >= last:
                break
    return seen


@pytest.mark.parametrize("pause", [0.0, 0.004])
def test_watch_sees_every_cursor_once_in_order_under_concurrent_writers(
    dsn: str, unique: Callable[..., str], conn: psycopg.Connection, pause: float
) -> None:
    channel = unique("run")
    before, writers, per_writer = 120, 4, 60
    total = before + writers * per_writer
    conn.execute(
        "select actae.record_event(%s, 'early', to_jsonb(g)) from generate_series(1, %s) as g",
        (channel, before))
    go = threading.Event()
    threads, errors = start_writers(dsn, channel, go, writers, per_writer, pause)

    async def main() -> tuple[list[int], list[int], list[int]]:
        async with ActaeClient(dsn, max_size=4) as client:
            return await asyncio.gather(
                watch_until(client, channel, total, page_size=7, started=go),
                watch_until(client, channel, total),
                watch_until(client, channel, total, after_cursor=100, page_size=3),
            )

    try:
        small_pages, big_pages, from_100 = run(main(), timeout=30)
    finally:
        go.set()
        for t in threads:
            t.join(timeout=30)
    assert not errors, errors
    assert small_pages == list(range(1, total + 1))
    assert big_pages == list(range(1, total + 1))
    assert from_100 == list(range(101, total + 1))


def test_watch_waits_for_a_channel_that_does_not_exist_yet(
    dsn: str, unique: Callable[..., str]
) -> None:
    channel = unique("run")
    go = threading.Event()
    threads, errors = start_writers(dsn, channel, go, writers=1, per_writer=20, pause=0.01)

    async def main() -> list[int]:
        async with ActaeClient(dsn) as client:
            async def release() -> None:
                await asyncio.sleep(0.3)  # the watcher is parked on NotFound + LISTEN by now
                go.set()

            watching = asyncio.ensure_future(watch_until(client, channel, 20))
            await release()
            return await watching

    try:
        seen = run(main(), timeout=20)
    finally:
        go.set()
        for t in threads:
            t.join(timeout=30)
    assert not errors, errors
    assert seen == list(range(1, 21))


def test_watch_follows_transitions_and_releases_its_connection(
    dsn: str, unique: Callable[..., str]
) -> None:
    channel = unique("run")

    async def main() -> tuple[list[tuple[int, str]], int]:
        # One connection only: the check afterwards runs on the connection that listened.
        async with ActaeClient(dsn, max_size=1) as client, ActaeClient(dsn) as writer:
            await writer.record_event(channel, "start", {})
            got: list[tuple[int, str]] = []
            stream = client.watch(channel, poll_seconds=POLL)
            async with aclosing(stream):
                async for event in stream:
                    got.append((event.cursor, event.event_type))
                    if event.cursor == 1:
                        await writer.transition_state(channel, "moved", {}, {"v": 1}, 0)
                        await writer.record_event(channel, "noted", {})
                    if event.cursor == 3:
                        break
            async with client.pool.connection() as conn:
                cur = await conn.execute("select count(*) from pg_listening_channels()")
                row = await cur.fetchone()
            return got, row[0] if row else -1

    got, listening = run(main(), timeout=20)
    assert got == [(1, "start"), (2, "moved"), (3, "noted")]
    assert listening == 0


def test_watch_follows_a_channel_purged_and_created_again_from_its_start(
    dsn: str, unique: Callable[..., str]
) -> None:
    channel = unique("run")

    async def main() -> list[tuple[int, str, Any]]:
        async with ActaeClient(dsn, max_size=1) as client, ActaeClient(dsn) as writer:
            for i in range(3):
                await writer.record_event(channel, "old", {"i": i})
            got: list[tuple[int, str, Any]] = []
            stream = client.watch(channel, poll_seconds=0.2)
            async with aclosing(stream):
                async for event in stream:
                    got.append((event.cursor, event.event_type, event.payload))
                    if event.cursor == 3 and event.event_type == "old":
                        # Purged and created again before the watcher reads again.
                        await writer.close_channel(channel)
                        while (await writer.purge("0 seconds")).more:
                            pass
                        for i in range(5):
                            await writer.record_event(channel, "new", {"i": i})
                    if event.event_type == "new" and event.cursor == 5:
                        break
            return got

    got = run(main(), timeout=30)
    assert got == [(n + 1, "old", {"i": n}) for n in range(3)] + [
        (n + 1, "new", {"i": n}) for n in range(5)]


@pytest.mark.parametrize("poll", [0, -1, float("nan"), float("inf"), 28801, "5", True])
def test_watch_refuses_a_poll_that_is_no_number_of_seconds(
    dsn: str, unique: Callable[..., str], poll: Any
) -> None:
    channel = unique("never-created")

    async def main() -> None:
        async with ActaeClient(dsn, max_size=1) as client:
            with pytest.raises(InvalidInput, match="^poll_seconds must be") as refused:
                await anext(client.watch(channel, poll_seconds=poll))
            assert refused.value.detail == {"argument": "poll_seconds"}

    run(main(), timeout=20)
    with psycopg.connect(dsn) as conn:  # refused before anything was written
        assert conn.execute("select count(*) from actae.channels where channel_id = %s",
                            (channel,)).fetchone() == (0,)


def test_watch_raises_the_error_that_ended_it_not_its_clean_up(
    dsn: str, unique: Callable[..., str]
) -> None:
    channel = unique("run")

    async def main() -> BaseException:
        async with ActaeClient(dsn, max_size=1) as client, ActaeClient(dsn) as writer:
            await writer.record_event(channel, "start", {})
            async with client.pool.connection() as conn:  # the pool's one connection
                pid = (await (await conn.execute("select pg_backend_pid()")).fetchall())[0][0]
            stream = client.watch(channel, poll_seconds=POLL)
            async with aclosing(stream):
                try:
                    async for _ in stream:  # the first event: the watcher then waits
                        with psycopg.connect(dsn, autocommit=True) as admin:
                            admin.execute("select pg_terminate_backend(%s::integer)", (pid,))
                except psycopg.OperationalError as exc:
                    return exc
            raise AssertionError("the watch ended without an error")

    error = run(main(), timeout=30)
    assert "the connection is closed" not in str(error), error  # the clean-up's error
    assert "terminat" in str(error) or "closed the connection" in str(error), error


def test_watch_resumed_at_the_head_of_a_channel_purged_and_created_again(
    dsn: str, unique: Callable[..., str]
) -> None:
    channel = unique("run")

    async def main() -> list[tuple[int, str]]:
        async with ActaeClient(dsn, max_size=1) as client, ActaeClient(dsn) as writer:
            for _ in range(2):
                await writer.record_event(channel, "old", {})
            got: list[tuple[int, str]] = []
            stream = client.watch(channel, after_cursor=2, poll_seconds=0.2)
            async with aclosing(stream):
                waiting = asyncio.ensure_future(anext(stream))
                await asyncio.sleep(0.5)  # registered and read: nothing after cursor 2
                await writer.close_channel(channel)
                while (await writer.purge("0 seconds")).more:
                    pass
                for _ in range(3):
                    await writer.record_event(channel, "new", {})
                event = await waiting
                got.append((event.cursor, event.event_type))
                while len(got) < 3:
                    event = await anext(stream)
                    got.append((event.cursor, event.event_type))
            return got

    # The new channel from its start: not its cursor 3 as if it went on from the old one.
    assert run(main(), timeout=30) == [(1, "new"), (2, "new"), (3, "new")]


def test_watch_with_pages_of_one_event(dsn: str, unique: Callable[..., str]) -> None:
    channel = unique("run")

    async def main() -> list[int]:
        async with ActaeClient(dsn, max_size=1) as client, ActaeClient(dsn) as writer:
            for i in range(3):
                await writer.record_event(channel, "e", {"i": i})
            seen: list[int] = []
            stream = client.watch(channel, page_size=1, poll_seconds=POLL)
            async with aclosing(stream):
                async for event in stream:
                    seen.append(event.cursor)
                    if event.cursor == 2:
                        await writer.record_event(channel, "e", {"i": 3})
                    if event.cursor == 4:
                        break
            return seen

    assert run(main(), timeout=20) == [1, 2, 3, 4]


def test_watch_notices_a_channel_created_again_with_fewer_events_at_its_next_read(
    dsn: str, unique: Callable[..., str]
) -> None:
    channel = unique("run")

    async def main() -> tuple[list[tuple[int, str]], float]:
        async with ActaeClient(dsn, max_size=1) as client, ActaeClient(dsn) as writer:
            for _ in range(3):
                await writer.record_event(channel, "old", {})
            got: list[tuple[int, str]] = []
            stream = client.watch(channel, poll_seconds=0.2)
            async with aclosing(stream):
                async for event in stream:
                    got.append((event.cursor, event.event_type))
                    if event.cursor == 3 and event.event_type == "old":
                        await writer.close_channel(channel)
                        while (await writer.purge("0 seconds")).more:
                            pass
                        await writer.record_event(channel, "new", {})  # head 1, below 3
                        created = time.monotonic()
                    if event.event_type == "new":
                        return got, time.monotonic() - created
            raise AssertionError("the watch ended")

    got, after = run(main(), timeout=30)
    assert got == [(1, "old"), (2, "old"), (3, "old"), (1, "new")]
    assert after < 5, after  # at a read (every 0.2 s), not at the registration's renewal (10 s)


def test_a_watch_page_reads_the_topic_once_whatever_its_size(
    dsn: str, unique: Callable[..., str]
) -> None:
    channel = unique("run")
    with SyncActaeClient(dsn) as writer:
        for _ in range(50):
            writer.record_event(channel, "e", {})
    with psycopg.connect(dsn) as conn:
        conn.execute("set local track_functions = 'all'")
        rows = conn.execute(calls.WATCH_PAGE, {
            "channel_id": channel, "after_cursor": 0, "max_events": 50}).fetchall()
        (topic_calls,) = conn.execute(
            "select pg_stat_get_xact_function_calls("
            "'actae.channel_topic(text)'::regprocedure)").fetchone() or (None,)
    assert len(rows) == 50
    assert topic_calls == 1  # not once per event of the page
