"""SPEC section 2 (execution ledger) and section 4 (errors) through the async driver.

Every claim outcome, the ambiguous flag, fencing, heartbeat / complete / fail semantics and
each SQLSTATE's exception class, against the real server. Leases that must lapse use the
shortest legal lease (1 s) and move the database clock past it (no test sleeps).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool

from actae import (
    ActaeClient,
    ActaeError,
    Claim,
    ForkToolBlocked,
    IdempotencyConflict,
    InvalidInput,
    LeaseLost,
    NotFound,
    SyncActaeClient,
    VersionConflict,
)
from tests.python.support.helpers import (
    db_now_minus,
    move_clock_past,
    run,
    with_client,
)

PARAMS = {"order_id": "4471", "amount_cents": 4200}
MS = timedelta(milliseconds=1)




async def claim(client: ActaeClient, channel: str, key: str = "charge:4471", **kw: Any) -> Claim:
    args: dict[str, Any] = {
        "tool_name": "charge_customer", "params": PARAMS, "dedup_fields": ["order_id"],
        "lease_seconds": 60,
    }
    args.update(kw)
    return await client.claim_execution(channel, key, **args)


# --- claim outcomes -------------------------------------------------------------------------

def test_claimed_creates_a_leased_row(dsn: str, unique: Callable[..., str]) -> None:
    async def body(client: ActaeClient) -> None:
        c = await claim(client, unique("run"), lease_seconds=45)
        assert c.status == "claimed" and c.owned
        assert c.execution.status == "claimed"
        assert c.claim_token is not None
        assert c.fence == 1 and c.execution.attempt == 1
        assert c.ambiguous is False
        assert c.execution.params == PARAMS
        assert c.execution.result is None and c.execution.error is None
        assert c.lease_expires_at - c.execution.claimed_at == timedelta(seconds=45)
        assert len(c.execution.fingerprint) == 64

    with_client(dsn, body)


def test_null_lease_seconds_means_default_60(dsn: str, unique: Callable[..., str]) -> None:
    async def body(client: ActaeClient) -> None:
        c = await claim(client, unique("run"), lease_seconds=None)
        assert c.execution.lease_seconds == 60
        assert c.lease_expires_at - c.execution.claimed_at == timedelta(seconds=60)

    with_client(dsn, body)


def test_replayed_returns_stored_result_without_token(
    dsn: str, unique: Callable[..., str]
) -> None:
    async def body(client: ActaeClient) -> None:
        channel = unique("run")
        first = await claim(client, channel)
        await client.complete_execution(first.execution.id, first.claim_token,
                                        result={"charge_id": "ch_1"})
        again = await claim(client, channel)
        assert again.status == "replayed" and not again.owned
        assert again.result == {"charge_id": "ch_1"}
        assert again.claim_token is None
        assert again.execution.id == first.execution.id
        assert again.fence == 1 and again.execution.status == "completed"

    with_client(dsn, body)


def test_in_progress_when_another_owner_holds_a_live_lease(
    dsn: str, unique: Callable[..., str]
) -> None:
    async def body(client: ActaeClient) -> None:
        channel = unique("run")
        first = await claim(client, channel, lease_seconds=300)
        other = await claim(client, channel)
        assert other.status == "in_progress" and not other.owned
        assert other.claim_token is None, "a non-owner must never see the token"
        assert other.lease_expires_at == first.lease_expires_at
        assert other.fence == 1
        # Heartbeat moves the row to in_progress; a third caller still does not steal it.
        await client.heartbeat_execution(first.execution.id, first.claim_token)
        third = await claim(client, channel)
        assert third.status == "in_progress"
        assert third.execution.status == "in_progress"

    with_client(dsn, body)


@pytest.mark.usefixtures("real_clock")
def test_reclaimed_after_lease_lapse_is_ambiguous_and_fenced(
    dsn: str, unique: Callable[..., str]
) -> None:
    async def body(client: ActaeClient) -> None:
        channel = unique("run")
        first = await claim(client, channel, lease_seconds=1)
        move_clock_past(dsn, first.lease_expires_at)
        second = await claim(client, channel, lease_seconds=30)
        assert second.status == "reclaimed" and second.owned
        assert second.ambiguous is True
        assert second.fence == first.fence + 1 == 2
        assert second.execution.attempt == 2
        assert second.claim_token is not None and second.claim_token != first.claim_token
        assert second.execution.id == first.execution.id
        # The old owner is fenced out of every write.
        with pytest.raises(LeaseLost) as lost:
            await client.complete_execution(first.execution.id, first.claim_token, result=1)
        assert lost.value.detail["fence"] == 2
        assert lost.value.detail["execution_id"] == str(first.execution.id)
        with pytest.raises(LeaseLost):
            await client.heartbeat_execution(first.execution.id, first.claim_token)
        with pytest.raises(LeaseLost):
            await client.fail_execution(first.execution.id, "boom", first.claim_token)
        # The new owner completes; a later claim replays its result.
        done = await client.complete_execution(second.execution.id, second.claim_token,
                                               result={"ok": True})
        assert done.status == "completed" and done.ambiguous is True
        replay = await claim(client, channel)
        assert replay.status == "replayed" and replay.result == {"ok": True}

    with_client(dsn, body)


def test_reclaimed_after_retryable_failure_is_not_ambiguous(
    dsn: str, unique: Callable[..., str]
) -> None:
    async def body(client: ActaeClient) -> None:
        channel = unique("run")
        first = await claim(client, channel)
        failed = await client.fail_execution(first.execution.id, "provider timeout",
                                             first.claim_token)
        assert failed.status == "failed" and failed.retryable is True
        second = await claim(client, channel)
        assert second.status == "reclaimed"
        assert second.ambiguous is False, "a recorded failure is a known outcome"
        assert second.fence == 2 and second.execution.attempt == 2
        assert second.execution.error is None and second.execution.status == "claimed"

    with_client(dsn, body)


def test_failed_non_retryably_surfaces_the_error(dsn: str, unique: Callable[..., str]) -> None:
    async def body(client: ActaeClient) -> None:
        channel = unique("run")
        first = await claim(client, channel)
        await client.fail_execution(first.execution.id, "card declined", first.claim_token,
                                    retryable=False)
        for _ in range(2):
            again = await claim(client, channel)
            assert again.status == "failed" and not again.owned
            assert again.error == "card declined"
            assert again.claim_token is None
            assert again.fence == 1

    with_client(dsn, body)


@pytest.mark.usefixtures("real_clock")
def test_concurrent_claims_have_exactly_one_owner(dsn: str, unique: Callable[..., str]) -> None:
    """Twelve callers on twelve pooled connections race for one key, twice."""

    async def body(client: ActaeClient) -> None:
        channel = unique("run")
        claims = await asyncio.gather(*(claim(client, channel, lease_seconds=1)
                                        for _ in range(12)))
        statuses = sorted(c.status for c in claims)
        assert statuses == ["claimed"] + ["in_progress"] * 11
        assert len({c.execution.id for c in claims}) == 1
        # After the lease lapses, twelve racing reclaimers: again exactly one owner.
        move_clock_past(dsn, claims[0].lease_expires_at)
        again = await asyncio.gather(*(claim(client, channel) for _ in range(12)))
        assert sorted(c.status for c in again) == ["in_progress"] * 11 + ["reclaimed"]
        owner = next(c for c in again if c.owned)
        assert owner.fence == 2 and owner.ambiguous
        assert all(c.claim_token is None for c in again if not c.owned)

    with_client(dsn, body, max_size=12)


# --- fingerprint and idempotency conflicts ----------------------------------------------------

def test_fingerprint_ignores_key_order_and_non_dedup_fields(
    dsn: str, unique: Callable[..., str]
) -> None:
    async def body(client: ActaeClient) -> None:
        channel = unique("run")
        first = await claim(client, channel, params={"order_id": "1", "note": "a"},
                            dedup_fields=["order_id"])
        await client.complete_execution(first.execution.id, first.claim_token, result=7)
        same = await claim(client, channel, params={"note": "b", "order_id": "1"},
                           dedup_fields=["order_id"])
        assert same.status == "replayed" and same.result == 7
        assert same.execution.fingerprint == first.execution.fingerprint
        # All of params when dedup_fields is null: key order still does not matter.
        a = await claim(client, channel, key="k2", params={"a": 1, "b": [1, 2]},
                        dedup_fields=None)
        b = await claim(client, channel, key="k3", params={"b": [1, 2], "a": 1},
                        dedup_fields=None)
        assert a.execution.fingerprint == b.execution.fingerprint

    with_client(dsn, body)


def test_fingerprint_is_sha256_of_canonical_jsonb_subset(
    dsn: str, unique: Callable[..., str], conn: psycopg.Connection
) -> None:
    async def body(client: ActaeClient) -> str:
        c = await claim(client, unique("run"), params={"order_id": "9", "x": 1},
                        dedup_fields=["order_id"])
        return c.execution.fingerprint

    fingerprint = with_client(dsn, body)
    row = conn.execute(
        """select encode(sha256(convert_to('{"order_id": "9"}'::jsonb::text, 'UTF8')), 'hex')"""
    ).fetchone()
    assert row is not None and fingerprint == row[0]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"params": {"order_id": "9999", "amount_cents": 4200}}, "given_fingerprint"),
        ({"tool_name": "refund_customer"}, "given_tool_name"),
        ({"dedup_fields": ["order_id", "amount_cents"]}, "given_dedup_fields"),
    ],
)
def test_same_key_different_operation_is_idempotency_conflict(
    dsn: str, unique: Callable[..., str], change: dict[str, Any], field: str
) -> None:
    async def body(client: ActaeClient) -> None:
        channel = unique("run")
        first = await claim(client, channel)
        with pytest.raises(IdempotencyConflict) as conflict:
            await claim(client, channel, **change)
        detail = conflict.value.detail
        assert detail["key_name"] == "charge:4471" and detail["channel_id"] == channel
        stored = field.replace("given_", "stored_")
        assert detail[field] != detail[stored]
        assert detail["stored_fingerprint"] == first.execution.fingerprint
        # Nothing was written: the original owner still owns it.
        row = await client.get_execution(first.execution.id)
        assert row.fence == 1 and row.status == "claimed"

    with_client(dsn, body)


def test_missing_dedup_field_is_invalid_input(dsn: str, unique: Callable[..., str]) -> None:
    async def body(client: ActaeClient) -> None:
        with pytest.raises(InvalidInput) as bad:
            await claim(client, unique("run"), dedup_fields=["customer_id"])
        assert bad.value.detail["argument"] == "dedup_fields"
        assert bad.value.detail["missing"] == ["customer_id"]

    with_client(dsn, body)


# --- heartbeat / complete / fail --------------------------------------------------------------

def test_heartbeat_moves_to_in_progress_and_extends_the_lease(
    dsn: str, unique: Callable[..., str]
) -> None:
    async def body(client: ActaeClient) -> None:
        c = await claim(client, unique("run"), lease_seconds=5)
        beat = await client.heartbeat_execution(c.execution.id, c.claim_token)
        assert beat.status == "in_progress"
        assert beat.claim_token == c.claim_token
        assert beat.heartbeat_at is not None
        # heartbeat_at and the new expiry read the clock separately (microseconds apart).
        assert abs(beat.lease_expires_at - beat.heartbeat_at - timedelta(seconds=5)) < MS
        longer = await client.heartbeat_execution(c.execution.id, c.claim_token,
                                                  lease_seconds=600)
        assert abs(longer.lease_expires_at - longer.heartbeat_at - timedelta(seconds=600)) < MS
        assert longer.fence == 1
        with pytest.raises(InvalidInput) as bad:
            await client.heartbeat_execution(c.execution.id, c.claim_token, lease_seconds=0)
        assert bad.value.detail["argument"] == "lease_seconds"

    with_client(dsn, body)


@pytest.mark.usefixtures("real_clock")
def test_lapsed_but_unreclaimed_token_is_still_honoured(
    dsn: str, unique: Callable[..., str]
) -> None:
    async def body(client: ActaeClient) -> None:
        c = await claim(client, unique("run"), lease_seconds=1)
        move_clock_past(dsn, c.lease_expires_at)
        assert db_now_minus(dsn, c.lease_expires_at) > 0
        beat = await client.heartbeat_execution(c.execution.id, c.claim_token, lease_seconds=1)
        assert beat.status == "in_progress" and beat.fence == 1
        move_clock_past(dsn, beat.lease_expires_at)
        done = await client.complete_execution(c.execution.id, c.claim_token, result="late")
        assert done.status == "completed" and done.result == "late" and done.fence == 1

    with_client(dsn, body)


def test_complete_is_idempotent_with_same_result_and_conflicts_otherwise(
    dsn: str, unique: Callable[..., str]
) -> None:
    async def body(client: ActaeClient) -> None:
        c = await claim(client, unique("run"))
        first = await client.complete_execution(c.execution.id, c.claim_token,
                                                result={"a": 1, "b": 2})
        again = await client.complete_execution(c.execution.id, c.claim_token,
                                                result={"b": 2, "a": 1})
        assert again.status == "completed" and again.result == {"a": 1, "b": 2}
        assert again.finished_at == first.finished_at, "a repeat must not write"
        with pytest.raises(IdempotencyConflict) as conflict:
            await client.complete_execution(c.execution.id, c.claim_token, result={"a": 2})
        assert conflict.value.detail["status"] == "completed"
        assert conflict.value.detail["result"] == {"a": 1, "b": 2}
        # The stored result is unchanged.
        assert (await client.get_execution(c.execution.id)).result == {"a": 1, "b": 2}

    with_client(dsn, body)


def test_none_result_is_stored_as_json_null_and_replays(
    dsn: str, unique: Callable[..., str], conn: psycopg.Connection
) -> None:
    async def body(client: ActaeClient) -> Claim:
        channel = unique("run")
        c = await claim(client, channel)
        await client.complete_execution(c.execution.id, c.claim_token, result=None)
        await client.complete_execution(c.execution.id, c.claim_token, result=None)
        return await claim(client, channel)

    replay = with_client(dsn, body)
    assert replay.status == "replayed" and replay.result is None
    row = conn.execute(
        "select jsonb_typeof(result) from actae.executions where execution_id = %s",
        (replay.execution.id,),
    ).fetchone()
    assert row == ("null",)


def test_fail_is_idempotent_and_outcome_conflicts_are_ac409(
    dsn: str, unique: Callable[..., str]
) -> None:
    async def body(client: ActaeClient) -> None:
        channel = unique("run")
        c = await claim(client, channel)
        await client.fail_execution(c.execution.id, "declined", c.claim_token, retryable=False)
        same = await client.fail_execution(c.execution.id, "declined", c.claim_token,
                                           retryable=False)
        assert same.status == "failed" and same.error == "declined"
        with pytest.raises(IdempotencyConflict):
            await client.fail_execution(c.execution.id, "other", c.claim_token, retryable=False)
        with pytest.raises(IdempotencyConflict) as after_fail:
            await client.complete_execution(c.execution.id, c.claim_token, result=1)
        assert after_fail.value.detail["status"] == "failed"
        with pytest.raises(IdempotencyConflict):
            await client.heartbeat_execution(c.execution.id, c.claim_token)

        d = await claim(client, channel, key="other-key")
        await client.complete_execution(d.execution.id, d.claim_token, result=1)
        with pytest.raises(IdempotencyConflict) as beat_done:
            await client.heartbeat_execution(d.execution.id, d.claim_token)
        assert beat_done.value.detail["status"] == "completed"
        with pytest.raises(IdempotencyConflict):
            await client.fail_execution(d.execution.id, "late", d.claim_token)

    with_client(dsn, body)


def test_wrong_token_is_lease_lost_before_any_status_check(
    dsn: str, unique: Callable[..., str]
) -> None:
    async def body(client: ActaeClient) -> None:
        c = await claim(client, unique("run"))
        await client.complete_execution(c.execution.id, c.claim_token, result=1)
        stranger = uuid.uuid4()
        for call in (
            client.complete_execution(c.execution.id, stranger, result=1),
            client.heartbeat_execution(c.execution.id, stranger),
            client.fail_execution(c.execution.id, "x", stranger),
        ):
            with pytest.raises(LeaseLost) as lost:
                await call
            assert lost.value.detail["status"] == "completed"

    with_client(dsn, body)


def test_unknown_execution_is_not_found(dsn: str, unique: Callable[..., str]) -> None:
    async def body(client: ActaeClient) -> None:
        missing = uuid.uuid4()
        with pytest.raises(NotFound) as nf:
            await client.complete_execution(missing, uuid.uuid4(), result=1)
        assert nf.value.detail == {"execution_id": str(missing)}
        with pytest.raises(NotFound):
            await client.heartbeat_execution(missing, uuid.uuid4())
        with pytest.raises(NotFound):
            await client.get_execution(missing)
        with pytest.raises(NotFound) as by_key:
            await client.get_execution(channel_id=unique("run"), key_name="nope")
        assert by_key.value.detail["key_name"] == "nope"

    with_client(dsn, body)


@pytest.mark.usefixtures("real_clock")
def test_reads_never_reveal_the_token(dsn: str, unique: Callable[..., str]) -> None:
    async def body(client: ActaeClient) -> None:
        channel = unique("run")
        c = await claim(client, channel, lease_seconds=1)
        assert (await client.get_execution(c.execution.id)).claim_token is None
        rows = await client.list_executions(channel)
        assert [r.id for r in rows] == [c.execution.id]
        assert rows[0].claim_token is None
        assert await client.list_executions(channel, status="completed") == []
        move_clock_past(dsn, c.lease_expires_at)
        expired = await client.list_executions(channel, lease_expired=True)
        assert [r.id for r in expired] == [c.execution.id]
        assert c.execution.id in {r.id for r in await client.list_expired_leases(100000)}

    with_client(dsn, body)


# --- limits: each edge accepted, one past it rejected naming the argument ---------------------

@pytest.mark.parametrize(
    ("kwargs", "argument"),
    [
        ({"channel_id": "c" * 257}, "channel_id"),
        ({"channel_id": ""}, "channel_id"),
        ({"channel_id": "é" * 129}, "channel_id"),  # 258 bytes
        ({"key_name": "k" * 1025}, "key_name"),
        ({"key_name": ""}, "key_name"),
        ({"tool_name": "t" * 257}, "tool_name"),
        ({"lease_seconds": 0}, "lease_seconds"),
        ({"lease_seconds": 86401}, "lease_seconds"),
        ({"params": ["not", "an", "object"], "dedup_fields": None}, "params"),
        ({"dedup_fields": []}, "dedup_fields"),
    ],
)
def test_claim_limits_reject_past_the_edge(
    dsn: str, unique: Callable[..., str], kwargs: dict[str, Any], argument: str
) -> None:
    async def body(client: ActaeClient) -> None:
        args: dict[str, Any] = {
            "channel_id": unique("run"), "key_name": "k", "tool_name": "t",
            "params": PARAMS, "dedup_fields": ["order_id"], "lease_seconds": 60,
        }
        args.update(kwargs)
        with pytest.raises(InvalidInput) as bad:
            await client.claim_execution(**args)
        assert bad.value.detail["argument"] == argument
        assert argument in str(bad.value)

    with_client(dsn, body)


def test_claim_limits_accept_the_edge(dsn: str, unique: Callable[..., str]) -> None:
    async def body(client: ActaeClient) -> None:
        base = unique("r")
        channel = base + "é" * ((256 - len(base)) // 2) + "x" * ((256 - len(base)) % 2)
        assert len(channel.encode()) == 256
        low = await client.claim_execution(channel, "k" * 1024, "t" * 256, PARAMS,
                                           lease_seconds=1)
        high = await client.claim_execution(channel, "é" * 512, "t", PARAMS,
                                            lease_seconds=86400)
        assert low.status == high.status == "claimed"
        assert high.lease_expires_at - high.execution.claimed_at == timedelta(days=1)

    with_client(dsn, body)


def test_text_postgres_cannot_store_is_invalid_input(
    dsn: str, unique: Callable[..., str]
) -> None:
    async def body(client: ActaeClient) -> None:
        with pytest.raises(InvalidInput) as nul:
            await client.claim_execution(unique("run"), "nul\x00key", "t", PARAMS)
        with pytest.raises(InvalidInput) as surrogate:
            await client.claim_execution(unique("run"), "k", "t\ud800", PARAMS)
        with pytest.raises(InvalidInput) as element:
            await client.claim_executions(unique("run"), ["a", "b\x00"], ["t", "t"],
                                          [PARAMS, PARAMS])
        # refused before it was sent: the error still names the argument
        assert nul.value.detail == {"argument": "key_name"} and "NUL" in str(nul.value)
        assert surrogate.value.detail == {"argument": "tool_name"}
        assert element.value.detail == {"argument": "key_names"}

    with_client(dsn, body)


# --- SPEC section 4: each SQLSTATE maps to its class, DETAIL parsed from JSON -----------------

async def _trigger(client: ActaeClient, code: str, channel: str) -> None:
    if code == "AC400":
        await client.claim_execution(channel, "k", "t", PARAMS, lease_seconds=0)
    elif code == "AC404":
        await client.get_channel(channel)
    elif code == "AC409":
        await client.record_event(channel, "step", {"n": 1}, operation_id="op")
        await client.record_event(channel, "step", {"n": 2}, operation_id="op")
    elif code == "AC412":
        await client.transition_state(channel, "step", {}, {"s": 1}, expected_version=3)
    elif code == "AC423":
        c = await client.claim_execution(channel, "k", "t", PARAMS)
        await client.heartbeat_execution(c.execution.id, uuid.uuid4())
    elif code == "AC403":
        await client.record_event(channel, "start", {})
        fork = await client.fork_channel(channel, 1, tool_policies={"charge": "block"})
        await client.claim_execution(fork.channel_id, "k", "charge", PARAMS)


@pytest.mark.parametrize(
    ("code", "cls", "detail_key"),
    [
        ("AC400", InvalidInput, "argument"),
        ("AC404", NotFound, "channel_id"),
        ("AC409", IdempotencyConflict, "stored_content_sha256"),
        ("AC412", VersionConflict, "current_version"),
        ("AC423", LeaseLost, "fence"),
        ("AC403", ForkToolBlocked, "tool_name"),
    ],
)
def test_each_sqlstate_maps_to_its_exception(
    dsn: str, unique: Callable[..., str], code: str, cls: type[ActaeError], detail_key: str
) -> None:
    async def body(client: ActaeClient) -> ActaeError:
        with pytest.raises(ActaeError) as caught:
            await _trigger(client, code, unique("run"))
        return caught.value

    error = with_client(dsn, body)
    assert type(error) is cls
    assert error.sqlstate == code
    assert detail_key in error.detail
    assert isinstance(error.__cause__, psycopg.Error)
    assert error.__cause__.diag.sqlstate == code
    assert error.message and "\n" not in error.message


# --- driver plumbing: a caller's pool, a caller's transaction ---------------------------------

def test_client_on_an_existing_pool(dsn: str, unique: Callable[..., str]) -> None:
    """A caller's own pool (not autocommit) works, and stays open after the client closes."""

    async def main() -> None:
        channel = unique("run")
        async with AsyncConnectionPool(dsn, min_size=1, max_size=2, open=False) as pool:
            async with ActaeClient(pool=pool) as client:
                c = await claim(client, channel)
                await client.complete_execution(c.execution.id, c.claim_token, result=5)
            assert not pool.closed
            async with pool.connection() as conn:
                cur = await conn.execute(
                    "select status, result from actae.executions where execution_id = %s",
                    (c.execution.id,))
                assert await cur.fetchone() == ("completed", 5)

    run(main())
    with pytest.raises(ValueError):
        ActaeClient()


def test_conn_parameter_joins_the_callers_transaction(
    dsn: str, unique: Callable[..., str]
) -> None:
    async def main() -> None:
        channel = unique("run")
        async with ActaeClient(dsn) as client:
            async with await psycopg.AsyncConnection.connect(dsn) as own:
                # Rolled back: the claim and the event vanish with the caller's transaction.
                c = await claim(client, channel, conn=own)
                await client.record_event(channel, "charged", {"n": 1}, conn=own)
                assert (await client.get_channel(channel, conn=own)).head_cursor == 1
                with pytest.raises(NotFound):
                    await client.get_channel(channel)  # invisible outside until commit
                await own.rollback()
                with pytest.raises(NotFound):
                    await client.get_execution(c.execution.id)
                with pytest.raises(NotFound):
                    await client.get_channel(channel)
                # Committed: the business write and the Actae calls land together.
                await own.execute("create temporary table orders (id text)")
                await own.execute("insert into orders values ('4471')")
                c = await claim(client, channel, conn=own)
                await client.complete_execution(c.execution.id, c.claim_token, result=1,
                                                conn=own)
                await client.record_event(channel, "charged", {"n": 1}, conn=own)
                await own.commit()
            replay = await claim(client, channel)
            assert replay.status == "replayed" and replay.result == 1
            assert (await client.get_channel(channel)).head_cursor == 1

    run(main())


def test_result_and_error_limits(dsn: str, unique: Callable[..., str]) -> None:
    async def body(client: ActaeClient) -> None:
        channel = unique("run")
        c = await claim(client, channel)
        with pytest.raises(InvalidInput) as big:
            await client.complete_execution(c.execution.id, c.claim_token,
                                            result={"blob": "x" * (1024 * 1024 + 10)})
        assert big.value.detail["argument"] == "result"
        for error in ("", "e" * 65537):
            with pytest.raises(InvalidInput) as bad:
                await client.fail_execution(c.execution.id, error, c.claim_token)
            assert bad.value.detail["argument"] == "error"
        row = await client.get_execution(c.execution.id)
        assert row.status == "claimed" and row.result is None, "a failed call writes nothing"
        done = await client.fail_execution(c.execution.id, "e" * 65536, c.claim_token)
        assert done.status == "failed" and len(done.error or "") == 65536
        for bad_rows in (0, 100001):
            with pytest.raises(InvalidInput) as rows:
                await client.list_executions(channel, max_rows=bad_rows)
            assert rows.value.detail["argument"] == "max_rows"
        with pytest.raises(InvalidInput) as status:
            await client.list_executions(channel, status="done")
        assert status.value.detail["argument"] == "status"

    with_client(dsn, body)


def test_dedup_fields_given_as_one_string_is_refused_not_split_into_letters(
    dsn: str, unique: Callable[..., str]
) -> None:
    channel = unique("dedup-str")

    async def body(client: ActaeClient) -> None:
        for call in (
            claim(client, channel, dedup_fields="order_id"),
            client.claim_executions(channel, ["a"], ["t"], [PARAMS], ["order_id"]),
        ):
            with pytest.raises(InvalidInput, match="^dedup_fields must be a list of field"
                               " names, not the string 'order_id'") as refused:
                await call
            assert refused.value.detail == {"argument": "dedup_fields"}
        assert [c.status for c in await client.claim_executions(
            channel, ["a"], ["t"], [PARAMS], [["order_id"]])] == ["claimed"]

    with_client(dsn, body)
    with SyncActaeClient(dsn) as client, pytest.raises(InvalidInput, match="^dedup_fields"):
        client.claim_execution(channel, "k", "t", PARAMS, "order_id")  # type: ignore[arg-type]
    with psycopg.connect(dsn) as conn:  # nothing but the one good claim was written
        assert conn.execute("select key_name from actae.executions where channel_id = %s",
                            (channel,)).fetchall() == [("a",)]


def test_the_integrations_refuse_dedup_fields_given_as_one_string(dsn: str) -> None:
    from langchain_core.tools import tool

    from actae.langgraph import durable_tool
    from actae.openai_agents import ActaeRun
    from actae.pydantic_ai import ActaeDurability

    @tool
    def charge(order_id: str) -> str:
        """Charge an order."""
        return order_id

    client = ActaeClient(dsn)  # never opened: refused before any call
    with pytest.raises(InvalidInput, match="^dedup_fields must be a list"):
        durable_tool(charge, client, dedup_fields="order_id")
    with pytest.raises(InvalidInput, match="^dedup_fields must be a list"):
        ActaeDurability(client, dedup_fields={"charge": "order_id"})
    with pytest.raises(InvalidInput, match="^dedup_fields must be a list"):
        ActaeRun(client, "run-1", dedup_fields={"charge": "order_id"})
    with pytest.raises(InvalidInput, match="^dedup_fields must be a list"):
        ActaeRun(client, "run-1", dedup_fields={"charge": b"order_id"})  # type: ignore[dict-item]
    for shape in ("order_id", ["order_id"]):
        with pytest.raises(InvalidInput, match="^dedup_fields must map tool names"):
            ActaeDurability(client, dedup_fields=shape)  # type: ignore[arg-type]
        with pytest.raises(InvalidInput, match="^dedup_fields must map tool names"):
            ActaeRun(client, "run-1", dedup_fields=shape)  # type: ignore[arg-type]
    # Lists (and None) are taken as they were.
    assert ActaeDurability(client, dedup_fields=None).dedup_fields == {}  # type: ignore[arg-type]
    assert durable_tool(charge, client, dedup_fields=("order_id",)).dedup_fields == ["order_id"]
    assert ActaeRun(client, "run-1", dedup_fields={"charge": ["order_id"]}).dedup_fields == {
        "charge": ["order_id"]}


@pytest.mark.parametrize("lease", [0, 0.5, 30.5, True, 86401, "60", None, float("nan")])
def test_the_integrations_refuse_a_lease_actae_cannot_take_when_made(
        dsn: str, lease: Any) -> None:
    """Refused when the integration is made, not at its first tool call, after a model turn
    was paid for; a fraction or a bool is not rounded into a lease."""
    from langchain_core.tools import tool

    from actae.langgraph import durable_tool
    from actae.openai_agents import ActaeRun
    from actae.pydantic_ai import ActaeDurability

    @tool
    def charge(order_id: str) -> str:
        """Charge an order."""
        return order_id

    client = ActaeClient(dsn)  # never opened: refused before any call
    makers: list[Callable[[], object]] = [
        lambda: durable_tool(charge, client, lease_seconds=lease),
        lambda: ActaeDurability(client, lease_seconds=lease),
        lambda: ActaeRun(client, "run-1", lease_seconds=lease),
    ]
    for make in makers:
        with pytest.raises(InvalidInput, match="^lease_seconds must be a whole number from 1"):
            make()
    assert ActaeRun(client, "run-1", lease_seconds=86400).lease_seconds == 86400
    whole = ActaeRun(client, "run-1", lease_seconds=60.0)  # type: ignore[arg-type]
    assert whole.lease_seconds == 60 and type(whole.lease_seconds) is int
