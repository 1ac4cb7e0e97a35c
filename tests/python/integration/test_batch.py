"""claim_executions / complete_executions through both clients: one round trip for N tool
calls, one row per element in order, and an element's error raising for the whole batch
with nothing written (the other elements' tokens stay usable)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import psycopg
import pytest

from actae import (
    ActaeClient,
    IdempotencyConflict,
    InvalidInput,
    LeaseLost,
    NotFound,
    SyncActaeClient,
)


def _count(conn: psycopg.Connection, channel: str) -> int:
    row = conn.execute(
        "select count(*) from actae.executions where channel_id = %s", (channel,)).fetchone()
    assert row is not None
    return int(row[0])


def test_sync_batch_claims_and_completes_in_order(
    dsn: str, conn: psycopg.Connection, unique: Callable[..., str]
) -> None:
    channel = unique("batch")
    keys = [f"call-{i}" for i in range(8)]
    with SyncActaeClient(dsn, max_size=1) as client:
        done = client.claim_execution(channel, "call-3", "search", {"q": 3})
        assert done.execution.claim_token is not None
        client.complete_execution(done.execution.execution_id, done.execution.claim_token, "old")

        claims = client.claim_executions(
            channel, keys, ["search"] * 8, [{"q": i} for i in range(8)],
            dedup_fields=[["q"] if i == 5 else None for i in range(8)], lease_seconds=30)
        assert [c.execution.key_name for c in claims] == keys
        assert [c.status for c in claims] == ["claimed"] * 3 + ["replayed"] + ["claimed"] * 4
        assert claims[3].execution.result == "old"
        assert claims[5].execution.dedup_fields == ["q"]

        owned = [c.execution for c in claims if c.status == "claimed"]
        results = [{"hits": i} for i in range(len(owned))]
        completed = client.complete_executions(
            [e.execution_id for e in owned], [e.claim_token for e in owned], results)
        assert [e.key_name for e in completed] == [e.key_name for e in owned]
        assert [e.result for e in completed] == results
        assert all(e.status == "completed" for e in completed)

        again = client.claim_executions(channel, keys, ["search"] * 8,
                                        [{"q": i} for i in range(8)],
                                        dedup_fields=[["q"] if i == 5 else None for i in range(8)])
        assert {c.status for c in again} == {"replayed"}
    assert _count(conn, channel) == 8


def test_sync_conflicting_element_raises_and_writes_nothing(
    dsn: str, conn: psycopg.Connection, unique: Callable[..., str]
) -> None:
    channel = unique("batch")
    with SyncActaeClient(dsn, max_size=1) as client:
        client.claim_execution(channel, "b", "search", {"q": 1})
        with pytest.raises(IdempotencyConflict) as caught:
            client.claim_executions(channel, ["a", "b", "c"], ["search"] * 3,
                                    [{"q": 0}, {"q": 2}, {"q": 0}])
        assert caught.value.detail["element"] == 2
        assert caught.value.message.startswith("element 2: ")
        assert _count(conn, channel) == 1, "elements 1 and 3 were rolled back"
        with pytest.raises(InvalidInput, match="params must have one element per call"):
            client.claim_executions(channel, ["a"], ["search"], [])


def test_async_fenced_element_records_no_result(
    dsn: str, conn: psycopg.Connection, unique: Callable[..., str]
) -> None:
    channel = unique("batch")

    async def scenario() -> None:
        async with ActaeClient(dsn, max_size=1) as client:
            claims = await client.claim_executions(
                channel, ["a", "b"], ["t", "t"], [{}, {}], lease_seconds=30)
            ids = [c.execution.execution_id for c in claims]
            tokens = [c.execution.claim_token for c in claims]
            conn.execute("update actae.executions set lease_expires_at = now() - interval '1s'"
                         " where execution_id = %s", (ids[1],))
            assert (await client.claim_execution(channel, "b", "t", {})).status == "reclaimed"
            with pytest.raises(LeaseLost) as caught:
                await client.complete_executions(ids, tokens, [1, 2])
            assert caught.value.detail["element"] == 2
            first = await client.get_execution(ids[0])
            assert first.status == "claimed", "element 1's result was not recorded"
            done = await client.complete_executions(ids[:1], tokens[:1], [1])
            assert [e.result for e in done] == [1]
            assert await client.claim_executions(channel, [], [], []) == []

    asyncio.run(scenario())


def test_sync_complete_with_channel_id(
    dsn: str, conn: psycopg.Connection, unique: Callable[..., str]
) -> None:
    """complete_executions(..., channel_id=...): the batch's channel, the same rows as the
    form without it; an element of another channel is NotFound naming the element, with
    nothing recorded."""
    channel, other = unique("batch"), unique("batch")
    with SyncActaeClient(dsn, max_size=1) as client:
        claims = client.claim_executions(channel, ["a", "b", "c"], ["search"] * 3,
                                         [{"q": i} for i in range(3)])
        ids = [c.execution.execution_id for c in claims]
        tokens = [c.claim_token for c in claims if c.claim_token]
        stray = client.claim_execution(other, "x", "search", {"q": 9})
        assert stray.claim_token is not None
        with pytest.raises(NotFound) as caught:
            client.complete_executions([ids[0], stray.execution.execution_id],
                                       [tokens[0], stray.claim_token], [1, 2],
                                       channel_id=channel)
        assert caught.value.detail["element"] == 2
        row = conn.execute("select count(*) from actae.executions where channel_id in (%s, %s)"
                           " and status = 'completed'", (channel, other)).fetchone()
        assert row is not None and row[0] == 0, "nothing was recorded"
        done = client.complete_executions(ids, tokens, [1, None, {"r": 3}], channel_id=channel)
        assert [e.execution_id for e in done] == ids
        assert [e.result for e in done] == [1, None, {"r": 3}]
        assert {e.status for e in done} == {"completed"}
        again = client.complete_executions(ids, tokens, [1, None, {"r": 3}], channel_id=channel)
        assert [e.model_dump() for e in again] == [e.model_dump() for e in done]
