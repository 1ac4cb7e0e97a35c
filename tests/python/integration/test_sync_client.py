"""SyncActaeClient: the same methods as ActaeClient, built from the same call builders (so
the same SQL), exercised against the real server without asyncio."""

from __future__ import annotations

import inspect
import uuid
from collections.abc import Callable

import psycopg
import pytest
from psycopg_pool import ConnectionPool

from actae import (
    ActaeClient,
    ForkToolBlocked,
    IdempotencyConflict,
    InvalidInput,
    LeaseLost,
    NotFound,
    SyncActaeClient,
    VersionConflict,
    calls,
)
from tests.python.support.helpers import fold_chain, move_clock_past

PARAMS = {"order_id": "4471", "amount_cents": 4200}




def _api(cls: type) -> set[str]:
    return {n for n, v in vars(cls).items() if not n.startswith("_") and callable(v)}


def test_same_methods_from_the_same_builders() -> None:
    sync_api, async_api = _api(SyncActaeClient), _api(ActaeClient)
    assert sync_api == async_api - {"watch"}
    builders = {n for n, v in vars(calls).items() if inspect.isfunction(v)
                and str(inspect.signature(v).return_annotation).startswith("Call[")}
    assert len(builders) >= 14
    for name in builders - {"channel_topic", "watch_page"}:  # watch_page: watch() reads it
        sync_method, async_method = getattr(SyncActaeClient, name), getattr(ActaeClient, name)
        assert sync_method.__wrapped__ is async_method.__wrapped__ is getattr(calls, name)
        assert inspect.signature(sync_method) == inspect.signature(async_method)


@pytest.mark.usefixtures("real_clock")
def test_sync_ledger_round_trip(dsn: str, unique: Callable[..., str]) -> None:
    channel = unique("run")
    with SyncActaeClient(dsn) as client:
        c = client.claim_execution(channel, "charge:4471", "charge_customer", PARAMS,
                                   ["order_id"], lease_seconds=60)
        assert c.status == "claimed" and c.fence == 1 and c.claim_token is not None
        busy = client.claim_execution(channel, "charge:4471", "charge_customer", PARAMS,
                                      ["order_id"])
        assert busy.status == "in_progress" and busy.claim_token is None
        beat = client.heartbeat_execution(c.execution.id, c.claim_token, 30)
        assert beat.status == "in_progress"
        with pytest.raises(LeaseLost):
            client.complete_execution(c.execution.id, uuid.uuid4(), result=1)
        done = client.complete_execution(c.execution.id, c.claim_token, result={"id": "ch_1"})
        assert done.status == "completed"
        assert client.complete_execution(c.execution.id, c.claim_token,
                                         result={"id": "ch_1"}).status == "completed"
        with pytest.raises(IdempotencyConflict):
            client.complete_execution(c.execution.id, c.claim_token, result={"id": "ch_2"})
        replay = client.claim_execution(channel, "charge:4471", "charge_customer", PARAMS,
                                        ["order_id"])
        assert replay.status == "replayed" and replay.result == {"id": "ch_1"}
        with pytest.raises(IdempotencyConflict):
            client.claim_execution(channel, "charge:4471", "charge_customer",
                                   {"order_id": "1"}, ["order_id"])
        assert client.get_execution(channel_id=channel, key_name="charge:4471").id == done.id
        assert [e.id for e in client.list_executions(channel, "completed")] == [done.id]

        f = client.claim_execution(channel, "email", "send_email", {"to": "a"})
        client.fail_execution(f.execution.id, "bounced", f.claim_token, retryable=False)
        failed = client.claim_execution(channel, "email", "send_email", {"to": "a"})
        assert failed.status == "failed" and failed.error == "bounced"

        r = client.claim_execution(channel, "retry", "search", {"q": 1}, lease_seconds=1)
        move_clock_past(dsn, r.lease_expires_at)
        again = client.claim_execution(channel, "retry", "search", {"q": 1})
        assert again.status == "reclaimed" and again.ambiguous and again.fence == 2
        with pytest.raises(LeaseLost):
            client.heartbeat_execution(r.execution.id, r.claim_token)
        with pytest.raises(InvalidInput) as bad:
            client.claim_execution(channel, "k", "t", PARAMS, lease_seconds=86401)
        assert bad.value.detail["argument"] == "lease_seconds"
        with pytest.raises(NotFound):
            client.get_execution(uuid.uuid4())


def test_sync_events_state_and_forks(dsn: str, unique: Callable[..., str]) -> None:
    channel = unique("run")
    with SyncActaeClient(dsn) as client:
        client.create_channel(channel)
        for n in range(1, 6):
            t = client.transition_state(channel, "step", {"n": n}, {"n": n}, n - 1,
                                        operation_id=f"s{n}")
            assert (t.cursor, t.version, t.outcome) == (n, n, "transitioned")
        assert client.transition_state(channel, "step", {"n": 1}, {"n": 1}, 0,
                                       operation_id="s1").outcome == "replayed"
        with pytest.raises(VersionConflict) as stale:
            client.transition_state(channel, "step", {}, {}, 2)
        assert stale.value.detail["current_version"] == 5
        assert client.record_event(channel, "note", "x").cursor == 6
        assert (client.get_state(channel, version=2).state, client.get_state(channel).version,
                client.get_state(channel, at_cursor=6).cursor) == ({"n": 2}, 5, 5)
        events = list(client.iter_events(channel, page_size=2))
        assert [e.cursor for e in events] == [1, 2, 3, 4, 5, 6]
        assert client.list_events(channel, 4, 1)[0].cursor == 5
        assert fold_chain(dsn, events) == [e.chain_sha256 for e in events]

        c = client.claim_execution(channel, "charge:1", "charge", {})
        client.complete_execution(c.execution.id, c.claim_token, result=1)
        fork = client.fork_channel(channel, 3, tool_policies={"charge": "block"})
        assert fork.prefix_sha256 == events[2].chain_sha256 and fork.version == 3
        info = client.get_channel(fork.channel_id)
        assert (info.parent_channel_id, info.head_cursor) == (channel, 3)
        assert list(client.iter_events(fork.channel_id)) == events[:3]
        # charge:1 completed after event 6, i.e. after the cut: blocked, not inherited.
        with pytest.raises(ForkToolBlocked):
            client.claim_execution(fork.channel_id, "charge:1", "charge", {})
        head = client.fork_channel(channel, 6)
        assert client.claim_execution(head.channel_id, "charge:1", "charge",
                                      {}).status == "replayed"


def test_sync_client_on_a_pool_and_in_the_callers_transaction(
    dsn: str, unique: Callable[..., str]
) -> None:
    channel = unique("run")
    with ConnectionPool(dsn, min_size=1, max_size=2, open=True) as pool:
        client = SyncActaeClient(pool=pool)
        with client:
            with psycopg.connect(dsn) as own:
                client.record_event(channel, "e", 1, conn=own)
                own.rollback()
                with pytest.raises(NotFound):
                    client.get_channel(channel)
                c = client.claim_execution(channel, "k", "t", {}, conn=own)
                client.complete_execution(c.execution.id, c.claim_token, result=2, conn=own)
                client.record_event(channel, "e", 1, conn=own)
                own.commit()
            assert client.get_channel(channel).head_cursor == 1
            assert client.claim_execution(channel, "k", "t", {}).result == 2
        assert not pool.closed
