"""JSON arguments against the real server: the driver's encoding (pydantic_core.to_json) stores
what json.dumps stored, and refuses what it refused, with the same errors."""

from __future__ import annotations

import asyncio
import datetime
import json
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from psycopg.types.json import Jsonb

from actae import ActaeClient, InvalidInput, NotFound, SyncActaeClient, _json, calls
from tests.python.support.json_corpus import corpus, nested


@pytest.fixture
def client(dsn: str) -> Iterator[SyncActaeClient]:
    with SyncActaeClient(dsn) as c:
        yield c


def old_encoding(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the call builders adapt JSON as the driver did before: Jsonb(value), json.dumps."""
    monkeypatch.setattr(calls, "jsonb", Jsonb)


def test_every_value_json_dumps_accepts_is_jsonb_equal_on_the_server(
    conn: psycopg.Connection,
) -> None:
    values = corpus()
    different = []
    for i, value in enumerate(values):
        row = conn.execute("select %s::jsonb = %s::jsonb", (Jsonb(value), _json.jsonb(value)))
        if row.fetchone() != (True,):
            different.append((i, json.dumps(value)[:100]))
    assert different == []
    assert len(values) > 300


def test_the_new_encoding_is_not_just_equal_to_itself(conn: psycopg.Connection) -> None:
    # the comparison above can fail: a None key written "None" (pydantic's default) differs
    row = conn.execute("select %s::jsonb = %s::jsonb",
                       (Jsonb({None: 1}), Jsonb({"None": 1}))).fetchone()
    assert row == (False,)


def _refusal(call: Callable[[], object]) -> tuple[type[BaseException], str | None]:
    with pytest.raises(Exception) as refused:
        call()
    cause = refused.value.__cause__
    sqlstate = cause.diag.sqlstate if isinstance(cause, psycopg.Error) else None
    return type(refused.value), sqlstate


@pytest.mark.parametrize("bad", [
    float("nan"), float("inf"), float("-inf"), {"nested": [1, float("nan")]},
], ids=["nan", "inf", "-inf", "nested-nan"])
def test_nan_is_refused_by_the_server_as_before(
    bad: Any, client: SyncActaeClient, unique: Callable[..., str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    channel = unique("json")
    client.create_channel(channel)

    def transition() -> object:
        return client.transition_state(channel, "step", {}, {"x": bad}, 0)

    new = _refusal(transition)
    old_encoding(monkeypatch)
    old = _refusal(transition)
    assert new == old == (InvalidInput, "22P02")
    assert client.get_state(channel).version == 0  # nothing written


def test_an_argument_the_server_cannot_take_as_its_type_is_named(
    dsn: str, client: SyncActaeClient, unique: Callable[..., str],
) -> None:
    """The server refuses such an argument before the function runs (its AC400 cannot name
    it); the driver then names it, under both clients, and nothing is written."""
    channel = unique("named")
    refusals: list[tuple[Callable[[], object], str, str]] = [
        (lambda: client.claim_execution(channel, "k", "t", {}, lease_seconds=2**31),
         "lease_seconds", "out of range for a PostgreSQL integer: 2147483648"),
        (lambda: client.start_run(channel, "a", {}, max_attempts=-(2**40)),
         "max_attempts", "out of range for a PostgreSQL integer"),
        (lambda: client.list_events(channel, 2**70), "after_cursor",
         "out of range for a PostgreSQL bigint"),
        (lambda: client.start_run(channel, "a", {"x": [1.5, float("nan")]}), "input",
         "is not valid JSON: NaN and Infinity"),
        (lambda: client.record_event(channel, "e", {"x": float("-inf")}), "payload",
         "is not valid JSON"),
    ]
    for call, argument, message in refusals:
        with pytest.raises(InvalidInput) as refused:
            call()
        assert refused.value.message.startswith(f"{argument} "), refused.value.message
        assert message in refused.value.message
        assert refused.value.detail == {"argument": argument}

    async def async_refusal() -> InvalidInput:
        async with ActaeClient(dsn) as aclient:
            with pytest.raises(InvalidInput) as refused:
                await aclient.sleep_run(channel, uuid.uuid4(), "s", 2**31)
            return refused.value

    assert asyncio.run(async_refusal()).detail == {"argument": "seconds"}
    # An array argument is named too (a batch's params)...
    with pytest.raises(InvalidInput) as refused:
        client.run_tools([(lambda ctx: 1, "k", "t", {"x": float("inf")})], channel_id=channel)
    assert refused.value.detail == {"argument": "params"}
    # ...and another argument's refusal is not blamed on a NaN beside it.
    with pytest.raises(InvalidInput, match="type uuid") as refused:
        client.run(calls.Call("select %(id)s::uuid, %(result)s::jsonb",
                              {"id": "not-a-uuid", "result": Jsonb({"x": float("nan")})},
                              lambda rows: rows))
    assert refused.value.detail == {}
    # What the encoder refused (a value holding itself) is not blamed on its NaN.
    circular: list[Any] = [float("nan")]
    circular.append(circular)
    with pytest.raises(InvalidInput, match="Circular reference") as refused:
        client.record_event(channel, "e", circular)
    assert refused.value.detail == {}
    with pytest.raises(NotFound):
        client.get_channel(channel)


@pytest.mark.parametrize(("depth", "expected"), [(300, None), (508, None), (520, "AC400"),
                                                 (3000, None)])
def test_deep_values_are_stored_or_refused_as_before(
    depth: int, expected: str | None, client: SyncActaeClient, unique: Callable[..., str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # pydantic encodes 254 levels; the server takes 512; json.dumps about 1000
    outcomes = []
    for encoding in ("new", "old"):
        if encoding == "old":
            old_encoding(monkeypatch)
        channel = unique("json")
        client.create_channel(channel)
        try:
            client.transition_state(channel, "step", {}, nested(depth), 0)
            outcomes.append(("stored", client.get_state(channel).state == nested(depth)))
        except InvalidInput as exc:
            cause = exc.__cause__
            outcomes.append(("refused", cause.diag.sqlstate if isinstance(cause, psycopg.Error)
                             else type(cause).__name__))
    assert outcomes[0] == outcomes[1]
    if depth < 512:
        assert outcomes[0] == ("stored", True)
    else:
        assert outcomes[0] == ("refused", expected or _refusal_of(depth))


def _refusal_of(depth: int) -> str:
    """Who refuses JSON this deep: json.dumps (RecursionError, Python 3.11), or, where it
    encodes it (3.13's encoder goes deeper), the server's 512 levels (AC400)."""
    try:
        json.dumps(nested(depth))
    except RecursionError:
        return "RecursionError"
    return "AC400"


def test_what_neither_encodes_raises_as_before(
    client: SyncActaeClient, unique: Callable[..., str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    channel = unique("json")
    client.create_channel(channel)

    def transition() -> object:
        return client.transition_state(channel, "step", {}, {"x": object()}, 0)

    circular: list[Any] = []
    circular.append(circular)

    def circular_transition() -> object:
        return client.transition_state(channel, "step", {}, circular, 0)

    new = _refusal(transition), _refusal(circular_transition)
    old_encoding(monkeypatch)
    assert new == (_refusal(transition), _refusal(circular_transition)) == (
        (TypeError, None), (InvalidInput, None))
    assert client.get_state(channel).version == 0


def test_values_json_dumps_refused_are_stored_as_pydantic_encodes_them(
    client: SyncActaeClient, unique: Callable[..., str],
) -> None:
    channel = unique("json")
    client.create_channel(channel)
    at = datetime.datetime(2026, 12, 3, 17, 0, tzinfo=datetime.UTC)
    run_id = uuid.UUID("12345678-1234-5678-1234-567812345678")
    state = {"at": at, "run": run_id, "tags": {"b"}, "raw": b"ok", None: "none key"}
    client.transition_state(channel, "step", {"run": run_id}, state, 0)
    assert client.get_state(channel).state == {
        "at": "2026-12-03T17:00:00Z", "run": "12345678-1234-5678-1234-567812345678",
        "tags": ["b"], "raw": "ok", "null": "none key"}


def test_claim_params_mean_the_same_under_both_encodings(
    client: SyncActaeClient, unique: Callable[..., str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a key claimed with the old encoding replays under the new one (no IdempotencyConflict)
    channel = unique("json")
    client.create_channel(channel)
    params = {"order": 2**70, "amounts": (0.1, 1e16, -0.0), "note": "é😀", "ids": {1: None}}
    new = client.claim_execution(channel, "k", "charge", params)
    assert new.status == "claimed" and new.claim_token is not None
    client.complete_execution(new.execution.execution_id, new.claim_token, {"ok": True, None: 1})
    old_encoding(monkeypatch)
    again = client.claim_execution(channel, "k", "charge", params)
    assert (again.status, again.execution.result) == ("replayed", {"ok": True, "null": 1})
