"""The run functions through both clients: every builder round-trips its row into the
models, errors map to the driver's exceptions, and NOTIFY announces runs that become due
now (start_run; an awaited event) and only those."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
from psycopg import sql

from actae import (
    ActaeClient,
    IdempotencyConflict,
    InvalidInput,
    LeaseLost,
    NotFound,
    SyncActaeClient,
)
from tests.python.support.helpers import move_clock_past


@pytest.fixture
def client(dsn: str) -> SyncActaeClient:
    with SyncActaeClient(dsn) as c:
        yield c


def test_whole_lifecycle_through_the_sync_client(client: SyncActaeClient,
                                                  unique: Callable[..., str]) -> None:
    queue, channel = unique("q"), unique("run")
    started = client.start_run(channel, "refund", {"order_id": 7}, queue)
    assert (started.outcome, started.status, started.claim_token) == ("started", "queued", None)
    assert client.start_run(channel, "refund", {"order_id": 7}, queue).outcome == "replayed"
    with pytest.raises(IdempotencyConflict):
        client.start_run(channel, "refund", {"order_id": 8}, queue)

    claimed = client.claim_run(queue, "w1", ["refund"], 30)
    assert claimed is not None and claimed.claim_token is not None
    assert (claimed.outcome, claimed.wake_reason, claimed.lease_seconds) == (
        "claimed", "start", 30)
    assert client.claim_run(queue, "w2") is None
    token = claimed.claim_token

    beat = client.heartbeat_run(channel, token, 45)
    assert beat.cancel_requested is False and beat.lease_seconds == 30
    assert client.sleep_run(channel, token, "zero", timedelta(0)).outcome == "elapsed"
    nap = client.sleep_run(channel, token, "nap", timedelta(seconds=90))
    assert nap.outcome == "sleeping" and nap.wake_at > datetime.now(UTC)
    with pytest.raises(LeaseLost):
        client.heartbeat_run(channel, token)

    assert client.get_run(channel).status == "sleeping"
    assert [r.channel_id for r in client.list_runs(queue, "sleeping")] == [channel]
    cancelled = client.cancel_run(channel, "not needed")
    assert (cancelled.outcome, cancelled.status) == ("cancelled", "cancelled")
    with pytest.raises(NotFound):
        client.get_run(unique("none"))
    with pytest.raises(InvalidInput):
        client.list_runs(status="asleep")


def test_wait_complete_and_fail_through_the_async_client(dsn: str,
                                                         unique: Callable[..., str]) -> None:
    async def main() -> None:
        async with ActaeClient(dsn) as client:
            queue, channel = unique("q"), unique("run")
            await client.start_run(channel, "a", None, queue, max_attempts=2)
            claimed = await client.claim_run(queue, "w")
            assert claimed is not None and claimed.claim_token is not None
            token = claimed.claim_token
            waited = await client.wait_for_event(channel, token, "ok", "approval", 0)
            assert waited.timed_out and waited.payload is None
            failed = await client.fail_run(channel, token, "boom")
            assert (failed.status, failed.failures, failed.wake_reason) == (
                "queued", 1, "retry")
            assert failed.due_at is not None
            with pytest.raises(LeaseLost):
                await client.complete_run(channel, token, 1)

            other = unique("run")
            await client.start_run(other, "a", None, queue)
            again = await client.claim_run(queue, "w")
            assert again is not None and again.channel_id == other
            assert again.claim_token is not None
            done = await client.complete_run(other, again.claim_token, {"ok": True})
            assert (done.status, done.result) == ("completed", {"ok": True})
            assert (await client.complete_run(other, again.claim_token, {"ok": True})
                    ).status == "completed"

    asyncio.run(main())


def test_notify_announces_runs_due_now(dsn: str, client: SyncActaeClient,
                                       unique: Callable[..., str]) -> None:
    queue = unique("q")
    topic = client.queue_topic(queue)
    with psycopg.connect(dsn, autocommit=True) as listener:
        listener.execute(sql.SQL("listen {}").format(sql.Identifier(topic)))

        def heard() -> list[str]:
            return [n.payload for n in listener.notifies(timeout=0.5, stop_after=10)]

        later = unique("later")
        client.start_run(later, "a", None, queue, datetime.now(UTC) + timedelta(hours=1))
        now = unique("now")
        client.start_run(now, "a", None, queue)
        # Announced without its channel id: any role may LISTEN, and a queue name is every
        # tenant's, so the payload is empty (the claim finds the run).
        assert heard() == [""], "a run due later is not announced; one due now is"

        claimed = client.claim_run(queue, "w")
        assert claimed is not None and claimed.claim_token is not None
        parked = client.wait_for_event(now, claimed.claim_token, "k", "approval", 3600)
        # parked, its deadline an hour away: neither received nor timed out
        assert (parked.outcome, parked.received, parked.timed_out) == ("waiting", False, False)
        client.record_event(now, "comment", {"text": "hi"})
        assert heard() == [], "another event type wakes nothing"
        client.record_event(now, "approval", {"approved": True})
        assert heard() == [""], "the awaited event announces the run"
        assert client.get_run(now).wake_reason == "event"


@pytest.mark.usefixtures("real_clock")
def test_a_run_whose_worker_is_lost_ten_times_in_a_row_ends_failed(
    dsn: str, client: SyncActaeClient, unique: Callable[..., str]
) -> None:
    """Lease lapses are reclaimed, counted in a row; a lapsed attempt in which a tool call
    completed starts the count again at 1; the claim that would reclaim the run a tenth
    time in a row counts one failure of it instead (with max_attempts 1: failed for good)
    and claims the next due run (migration 0023). Runs on Citus too (tests/citus/cluster.py
    runs this file)."""
    queue, channel, following = unique("q"), unique("lost"), unique("next")
    client.start_run(channel, "crashes", {}, queue, max_attempts=1)
    row = client.claim_run(queue, "w", None, 1)

    def lapse() -> None:
        nonlocal row
        assert row is not None and row.lease_expires_at is not None
        move_clock_past(dsn, row.lease_expires_at)
        row = client.claim_run(queue, "w", None, 1)
        assert row is not None and (row.channel_id, row.outcome) == (channel, "reclaimed")

    for _ in range(5):
        lapse()
    assert row is not None and row.failures == 0 and row.attempt == 6
    # A tool call completes in this attempt: its lapse is the first of a new count.
    done = client.claim_execution(channel, "step-1", "search", {})
    assert done.claim_token is not None
    client.complete_execution(done.execution.id, done.claim_token, {"hits": 1},
                              channel_id=channel)
    for _ in range(9):
        lapse()  # 1 (progress), then 2 .. 9: the replayed step is no progress
    assert client.get_run(channel).status == "running"
    assert row is not None and row.lease_expires_at is not None
    move_clock_past(dsn, row.lease_expires_at)
    client.start_run(following, "other", {}, queue)
    claimed = client.claim_run(queue, "w", None, 1)
    assert claimed is not None and (claimed.channel_id, claimed.outcome) == (
        following, "claimed")
    lost = client.get_run(channel)
    assert (lost.status, lost.failures, lost.attempt) == ("failed", 1, 15)
    assert lost.error is not None
    assert lost.error.startswith("the run's worker was lost 10 times in a row")
    with pytest.raises(IdempotencyConflict):
        client.complete_run(channel, row.claim_token, "late")  # the lost owner's token


@pytest.mark.parametrize("seconds", [-0.5, timedelta(milliseconds=-1), float("nan"),
                                     float("inf")])
def test_a_sleep_or_wait_of_less_than_zero_or_no_number_is_refused(
    client: SyncActaeClient, unique: Callable[..., str], seconds: float | timedelta
) -> None:
    """Rounding a sleep up to whole seconds must not turn -0.5 into 0 (an elapsed sleep):
    it is refused as -1 is, naming the argument, and the run stays as it was."""
    queue, channel = unique("q"), unique("run")
    client.start_run(channel, "a", None, queue)
    claimed = client.claim_run(queue, "w")
    assert claimed is not None and claimed.claim_token is not None
    token = claimed.claim_token
    with pytest.raises(InvalidInput, match="^seconds "):
        client.sleep_run(channel, token, "nap", seconds)
    with pytest.raises(InvalidInput, match="^timeout_seconds "):
        client.wait_for_event(channel, token, "ok", "approval", seconds)
    after = client.get_run(channel)
    assert (after.status, after.attempt) == ("running", 1)
    assert client.sleep_run(channel, token, "nap", 60).outcome == "sleeping"


def test_a_naive_run_at_is_the_callers_local_time(
    dsn: str, unique: Callable[..., str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A naive datetime means local time in Python (datetime.astimezone()); the session's
    time zone (the server's, here 9 hours away from the caller's) must not decide it."""
    monkeypatch.setenv("TZ", "Asia/Tokyo")  # the caller's local time: UTC+9
    monkeypatch.setenv("PGTZ", "UTC")  # the sessions' time zone
    time.tzset()
    try:
        with SyncActaeClient(dsn, max_size=1) as client:
            asked = datetime.now() + timedelta(minutes=5)  # naive: 5 minutes from now, local
            run = client.start_run(unique("run"), "agent", {}, unique("q"), run_at=asked)
            assert run.due_at is not None
            assert abs(run.due_at - (datetime.now(UTC) + timedelta(minutes=5))) \
                < timedelta(minutes=1)
            older = client.list_channels(created_before=datetime.now() - timedelta(hours=1),
                                         max_rows=1000)
            assert all(row.created_at < datetime.now(UTC) - timedelta(minutes=59)
                       for row in older)
    finally:
        monkeypatch.undo()
        time.tzset()
