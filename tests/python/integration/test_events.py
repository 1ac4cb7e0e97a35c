"""SPEC section 3 (events and state) through the async driver, against the real server.

record_event, transition_state, get_channel, list_events, iter_events and get_state, the
hash chain recomputed independently, and gapless cursors under real concurrent writers.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import psycopg
import pytest

from actae import (
    ActaeClient,
    IdempotencyConflict,
    InvalidInput,
    NotFound,
    SyncActaeClient,
    VersionConflict,
)
from tests.python.support.helpers import fold_chain, with_client


def test_record_event_creates_the_channel_and_appends_gapless(
    dsn: str, unique: Callable[..., str]
) -> None:
    async def body(client: ActaeClient) -> None:
        channel = unique("run")
        with pytest.raises(NotFound):
            await client.get_channel(channel)
        cursors = []
        for n in range(1, 4):
            recorded = await client.record_event(channel, "step", {"n": n})
            assert recorded.outcome == "recorded"
            cursors.append(recorded.cursor)
        assert cursors == [1, 2, 3]
        info = await client.get_channel(channel)
        assert info.head_cursor == 3 and info.state_version == 0
        assert info.parent_channel_id is None and info.fork_cursor is None
        assert info.lineage == []
        events = await client.list_events(channel)
        assert [(e.cursor, e.event_type, e.payload) for e in events] == [
            (1, "step", {"n": 1}), (2, "step", {"n": 2}), (3, "step", {"n": 3})]
        assert info.head_chain_sha256 == events[-1].chain_sha256
        # Events record no state: the state is still version 0, JSON null.
        state = await client.get_state(channel)
        assert (state.version, state.cursor, state.state) == (0, 0, None)

    with_client(dsn, body)


def test_new_channel_has_version_0_null_state_and_head_0(
    dsn: str, unique: Callable[..., str]
) -> None:
    async def body(client: ActaeClient) -> None:
        channel = unique("run")
        created = await client.create_channel(channel, {"agent": "support"})
        assert (created.head_cursor, created.state_version) == (0, 0)
        assert created.metadata == {"agent": "support"}
        state = await client.get_state(channel)
        assert (state.version, state.cursor, state.state) == (0, 0, None)
        assert await client.list_events(channel) == []
        assert [e async for e in client.iter_events(channel)] == []

    with_client(dsn, body)


def test_hash_chain_folds_from_the_empty_string(
    dsn: str, unique: Callable[..., str], conn: psycopg.Connection
) -> None:
    payloads: list[Any] = [
        {"b": 1, "a": [1, 2, {"z": None}]}, "text", 42, None, {"unicode": "é✓"}, [],
        {"nested": {"y": 1.5, "x": True}},
    ]

    async def body(client: ActaeClient) -> list[Any]:
        channel = unique("run")
        for i, payload in enumerate(payloads):
            await client.record_event(channel, f"type-{i}", payload)
        return await client.list_events(channel)

    events = with_client(dsn, body)
    assert [e.payload for e in events] == payloads
    assert fold_chain(dsn, events) == [e.chain_sha256 for e in events]
    # Independent of the fold helper: the first link by hand, from the server's jsonb text.
    row = conn.execute(
        "select encode(sha256(convert_to(':1:type-0:' || %s::jsonb::text, 'UTF8')), 'hex')",
        ('{"a": [1, 2, {"z": null}], "b": 1}',),
    ).fetchone()
    assert row is not None and events[0].chain_sha256 == row[0]


def test_record_event_operation_id_replays_or_conflicts(
    dsn: str, unique: Callable[..., str]
) -> None:
    async def body(client: ActaeClient) -> None:
        channel = unique("run")
        first = await client.record_event(channel, "tool_called", {"q": 1}, operation_id="op-1")
        await client.record_event(channel, "other", {})
        again = await client.record_event(channel, "tool_called", {"q": 1}, operation_id="op-1",
                                          expected_cursor=0)
        assert again.outcome == "replayed" and again.cursor == first.cursor == 1
        assert again.recorded_at == first.recorded_at
        assert (await client.get_channel(channel)).head_cursor == 2
        with pytest.raises(IdempotencyConflict) as payload_changed:
            await client.record_event(channel, "tool_called", {"q": 2}, operation_id="op-1")
        assert payload_changed.value.detail["operation_id"] == "op-1"
        with pytest.raises(IdempotencyConflict):
            await client.record_event(channel, "renamed", {"q": 1}, operation_id="op-1")
        # One namespace per channel, shared with transition_state.
        with pytest.raises(IdempotencyConflict) as other_kind:
            await client.transition_state(channel, "tool_called", {"q": 1}, {"s": 1},
                                          expected_version=0, operation_id="op-1")
        assert other_kind.value.detail["stored_kind"] == "record_event"
        assert other_kind.value.detail["given_kind"] == "transition_state"
        # The same operation_id in another channel is independent.
        elsewhere = await client.record_event(unique("run"), "x", {}, operation_id="op-1")
        assert elsewhere.outcome == "recorded"
        assert (await client.get_channel(channel)).head_cursor == 2

    with_client(dsn, body)


def test_record_event_expected_cursor_guard(dsn: str, unique: Callable[..., str]) -> None:
    async def body(client: ActaeClient) -> None:
        channel = unique("run")
        assert (await client.record_event(channel, "a", {}, expected_cursor=0)).cursor == 1
        assert (await client.record_event(channel, "b", {}, expected_cursor=1)).cursor == 2
        with pytest.raises(VersionConflict) as stale:
            await client.record_event(channel, "c", {}, expected_cursor=1)
        assert stale.value.detail["current_cursor"] == 2
        assert stale.value.detail["expected_cursor"] == 1
        assert (await client.get_channel(channel)).head_cursor == 2

    with_client(dsn, body)


def test_transition_state_writes_event_and_snapshot_together(
    dsn: str, unique: Callable[..., str]
) -> None:
    async def body(client: ActaeClient) -> None:
        channel = unique("run")
        t1 = await client.transition_state(channel, "planned", {"plan": "p"}, {"step": 1}, 0)
        assert (t1.cursor, t1.version, t1.outcome) == (1, 1, "transitioned")
        await client.record_event(channel, "note", {"text": "no state change"})
        t2 = await client.transition_state(channel, "searched", {"q": "x"}, {"step": 2}, 1,
                                           expected_cursor=2)
        assert (t2.cursor, t2.version) == (3, 2)
        info = await client.get_channel(channel)
        assert (info.head_cursor, info.state_version) == (3, 2)
        latest = await client.get_state(channel)
        assert (latest.version, latest.cursor, latest.state) == (2, 3, {"step": 2})
        v1 = await client.get_state(channel, version=1)
        assert (v1.version, v1.cursor, v1.state) == (1, 1, {"step": 1})
        v0 = await client.get_state(channel, version=0)
        assert (v0.version, v0.cursor, v0.state) == (0, 0, None)
        at2 = await client.get_state(channel, at_cursor=2)  # the note carries no snapshot
        assert (at2.version, at2.cursor, at2.state) == (1, 1, {"step": 1})
        at0 = await client.get_state(channel, at_cursor=0)
        assert at0.version == 0 and at0.state is None
        with pytest.raises(NotFound) as no_version:
            await client.get_state(channel, version=3)
        assert no_version.value.detail["current_version"] == 2
        with pytest.raises(NotFound):
            await client.get_state(channel, at_cursor=4)
        with pytest.raises(InvalidInput):
            await client.get_state(channel, version=1, at_cursor=1)

    with_client(dsn, body)


def test_stale_writer_is_version_conflict_and_writes_nothing(
    dsn: str, unique: Callable[..., str]
) -> None:
    async def body(client: ActaeClient) -> None:
        channel = unique("run")
        await client.transition_state(channel, "a", {}, {"by": "writer-1"}, 0)
        # A second writer read version 0 too, and is now stale.
        with pytest.raises(VersionConflict) as stale:
            await client.transition_state(channel, "b", {}, {"by": "writer-2"}, 0)
        assert stale.value.detail["current_version"] == 1
        assert stale.value.detail["current_cursor"] == 1
        assert stale.value.detail["expected_version"] == 0
        with pytest.raises(VersionConflict) as stale_cursor:
            await client.transition_state(channel, "b", {}, {"by": "writer-2"}, 1,
                                          expected_cursor=0)
        assert stale_cursor.value.detail["current_cursor"] == 1
        info = await client.get_channel(channel)
        assert (info.head_cursor, info.state_version) == (1, 1)
        assert (await client.get_state(channel)).state == {"by": "writer-1"}
        assert len(await client.list_events(channel)) == 1

    with_client(dsn, body)


def test_transition_state_operation_id_replays_whatever_the_guards_say(
    dsn: str, unique: Callable[..., str]
) -> None:
    async def body(client: ActaeClient) -> None:
        channel = unique("run")
        first = await client.transition_state(channel, "a", {"p": 1}, {"s": 1}, 0,
                                              operation_id="step-1")
        # A retry after a dropped connection: the guard is now stale, the op replays.
        again = await client.transition_state(channel, "a", {"p": 1}, {"s": 1}, 0,
                                              operation_id="step-1")
        assert again.outcome == "replayed"
        assert (again.cursor, again.version) == (first.cursor, first.version) == (1, 1)
        with pytest.raises(IdempotencyConflict):
            await client.transition_state(channel, "a", {"p": 1}, {"s": 2}, 1,
                                          operation_id="step-1")
        info = await client.get_channel(channel)
        assert (info.head_cursor, info.state_version) == (1, 1)

    with_client(dsn, body)


def test_list_events_after_cursor_is_exclusive_and_max_events_bounds(
    dsn: str, unique: Callable[..., str], conn: psycopg.Connection
) -> None:
    channel = unique("run")
    conn.execute(
        "select actae.record_event(%s, 'tick', jsonb_build_object('n', g))"
        " from generate_series(1, 25) as g", (channel,))

    async def body(client: ActaeClient) -> None:
        page = await client.list_events(channel, after_cursor=10, max_events=5)
        assert [e.cursor for e in page] == [11, 12, 13, 14, 15]
        assert [e.payload["n"] for e in page] == [11, 12, 13, 14, 15]
        assert [e.cursor for e in await client.list_events(channel, 23)] == [24, 25]
        assert await client.list_events(channel, 25) == []
        assert len(await client.list_events(channel)) == 25  # default max_events is 100
        for bad in (0, 100001):
            with pytest.raises(InvalidInput) as err:
                await client.list_events(channel, 0, bad)
            assert err.value.detail["argument"] == "max_events"
        with pytest.raises(NotFound):
            await client.list_events(unique("missing"))

    with_client(dsn, body)


@pytest.mark.parametrize("count", [0, 1, 27, 28, 29])
def test_iter_events_pages_across_page_boundaries(
    dsn: str, unique: Callable[..., str], conn: psycopg.Connection, count: int
) -> None:
    """Page size 7: the last page is short, exactly full (an empty page ends it) or single."""
    channel = unique("run")
    conn.execute("select actae.create_channel(%s)", (channel,))
    conn.execute(
        "select actae.record_event(%s, 'tick', to_jsonb(g)) from generate_series(1, %s) as g",
        (channel, count))

    async def body(client: ActaeClient) -> tuple[list[int], list[int]]:
        seen = [e.cursor async for e in client.iter_events(channel, page_size=7)]
        tail = [e.cursor async for e in client.iter_events(channel, 5, page_size=7)]
        return seen, tail

    seen, tail = with_client(dsn, body)
    assert seen == list(range(1, count + 1))
    assert tail == list(range(6, count + 1))


def test_event_limits(dsn: str, unique: Callable[..., str]) -> None:
    async def body(client: ActaeClient) -> None:
        channel = unique("run")
        ok = await client.record_event(channel, "e" * 256, {}, operation_id="o" * 256)
        assert ok.outcome == "recorded"
        for kwargs, argument in (
            ({"event_type": "e" * 257}, "event_type"),
            ({"event_type": ""}, "event_type"),
            ({"operation_id": "o" * 257}, "operation_id"),
            ({"payload": {"blob": "x" * (1024 * 1024 + 10)}}, "payload"),
        ):
            args: dict[str, Any] = {"channel_id": channel, "event_type": "t", "payload": {}}
            args.update(kwargs)
            with pytest.raises(InvalidInput) as bad:
                await client.record_event(**args)
            assert bad.value.detail["argument"] == argument
        assert (await client.get_channel(channel)).head_cursor == 1

    with_client(dsn, body)


def test_concurrent_writers_get_gapless_cursors(dsn: str, unique: Callable[..., str]) -> None:
    """Eight threads, each on its own connection, append to one channel at once: the
    cursors are exactly 1..N, every append is there once, and the chain folds."""
    channel = unique("run")
    writers, per_writer = 8, 25
    barrier = threading.Barrier(writers)
    results: dict[int, list[int]] = {}
    errors: list[BaseException] = []

    with SyncActaeClient(dsn, max_size=writers) as client:
        client.create_channel(channel)

        def write(w: int) -> None:
            try:
                with client.pool.connection() as conn:
                    pids = conn.execute("select pg_backend_pid()").fetchone()
                    assert pids is not None
                    barrier.wait(timeout=30)
                    results[w] = [
                        client.record_event(channel, "append", {"w": w, "i": i},
                                            conn=conn).cursor
                        for i in range(per_writer)
                    ]
                    results[-1 - w] = [pids[0]]
            except BaseException as exc:  # surfaced by the main thread
                errors.append(exc)

        threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert not errors, errors
        events = list(client.iter_events(channel, page_size=50))

    backends = {results[-1 - w][0] for w in range(writers)}
    assert len(backends) == writers, "each writer must use its own server connection"
    total = writers * per_writer
    returned = sorted(c for w in range(writers) for c in results[w])
    assert returned == list(range(1, total + 1)), "no gaps, no duplicates"
    assert [e.cursor for e in events] == list(range(1, total + 1))
    for w in range(writers):
        mine = [e for e in events if e.payload["w"] == w]
        assert [e.payload["i"] for e in mine] == list(range(per_writer))
        assert [e.cursor for e in mine] == results[w]
    assert fold_chain(dsn, events) == [e.chain_sha256 for e in events]



def test_state_limit_is_8_mib(dsn: str, unique: Callable[..., str]) -> None:
    async def body(client: ActaeClient) -> None:
        channel = unique("run")
        # Random-looking text so the 8 MiB value cannot shrink below the limit.
        blob = "".join(f"{i:08x}" for i in range(8 * 1024 * 1024 // 8 + 64))
        with pytest.raises(InvalidInput) as big:
            await client.transition_state(channel, "big", {}, {"blob": blob}, 0)
        assert big.value.detail["argument"] == "state"
        ok = await client.transition_state(channel, "ok", {}, {"blob": blob[: 4 * 1024 * 1024]},
                                           0)
        assert ok.version == 1

    with_client(dsn, body)
