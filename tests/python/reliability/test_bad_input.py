"""Bad input: generated arguments against every Actae function, through the driver and as
raw SQL. Only the spec's AC… errors may come back (the driver raises its ActaeError classes),
never an internal error or a bare Python exception, and a rejected call changes no table.
Then every documented limit, tested at its edge."""

from __future__ import annotations

import inspect
import json
import os
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import given
from hypothesis import strategies as st
from psycopg.types.json import Jsonb

from actae import calls
from actae.client import SyncActaeClient
from actae.errors import ActaeError, InvalidInput

from .badinput import BATCH_STRATEGIES, SETTINGS, World, driver_strategies, nested, raw_strategy
from .harness import scratch_database, table_digest

# Calls made and rejections seen, by SQLSTATE; the soak reads them from
# $ACTAE_RELIABILITY_STATS (a JSON file written when the module finishes).
STATS: Counter[str] = Counter()

BUILDERS = sorted(
    (name, fn) for name, fn in inspect.getmembers(calls, inspect.isfunction)
    if fn.__module__ == calls.__name__ and not name.startswith("_")
    and "conn" in inspect.signature(fn).parameters
)


@pytest.fixture(scope="module", autouse=True)
def stats_file() -> Iterator[None]:
    yield
    path = os.environ.get("ACTAE_RELIABILITY_STATS")
    if path:
        Path(path).write_text(json.dumps(STATS))


@pytest.fixture(scope="module")
def dsn(dsn: str) -> Iterator[str]:
    """This module works in a scratch database: what it leaves behind (deep JSON, lapsed
    leases, random channels) is nobody else's business."""
    with scratch_database(dsn) as scratch:
        yield scratch


@pytest.fixture(scope="module")
def client(dsn: str) -> Iterator[SyncActaeClient]:
    with SyncActaeClient(dsn, max_size=2) as c:
        yield c


@pytest.fixture(scope="module")
def world(client: SyncActaeClient) -> World:
    channel = f"bad-{uuid.uuid4().hex[:12]}"
    for n in range(3):
        client.record_event(channel, "seen", {"n": n})
    client.transition_state(channel, "moved", {"to": 1}, {"at": 1}, expected_version=0)
    fork = client.fork_channel(channel, 2).channel_id
    ids, tokens = [], []
    for key in ("k1", "k2", "k3"):
        claim = client.claim_execution(channel, key, "tool", {"key": key})
        assert claim.claim_token is not None
        ids.append(claim.execution.id)
        tokens.append(claim.claim_token)
    client.complete_execution(ids[2], tokens[2], {"done": True})
    return World(channel, fork, tuple(ids), tuple(tokens))


def call_and_judge(conn: psycopg.Connection[Any], action: Callable[[], Any]) -> str:
    """Run one call; a rejection must be an Actae error and must leave every table as it was.
    Returns 'ok' or the error class name."""
    before = table_digest(conn)
    STATS["driver_calls"] += 1
    try:
        action()
    except ActaeError as exc:
        assert table_digest(conn) == before, f"{type(exc).__name__} but tables changed"
        assert exc.sqlstate.startswith("AC"), exc
        STATS["driver_rejected"] += 1
        STATS[exc.sqlstate] += 1
        return type(exc).__name__
    return "ok"


@pytest.mark.parametrize(("name", "builder"), BUILDERS, ids=[n for n, _ in BUILDERS])
def test_driver_rejects_only_with_actae_errors(
    conn: psycopg.Connection[Any], client: SyncActaeClient, world: World, name: str,
    builder: Callable[..., calls.Call[Any]],
) -> None:
    strategies = driver_strategies(world)
    if name == "claim_executions":
        strategies.update(BATCH_STRATEGIES)
    arguments = [p for p in inspect.signature(builder).parameters if p != "conn"]
    missing = [a for a in arguments if a not in strategies]
    assert not missing, f"{name}: add strategies for {missing}"
    seen: set[str] = set()

    @SETTINGS
    @given(st.fixed_dictionaries({a: strategies[a] for a in arguments}))
    def check(kwargs: dict[str, Any]) -> None:
        seen.add(call_and_judge(conn, lambda: client.run(builder(**kwargs))))

    check()
    if arguments:
        assert seen - {"ok"}, f"{name}: no generated call was rejected"




def api_functions(conn: psycopg.Connection[Any]) -> list[tuple[str, list[str]]]:
    rows = conn.execute(
        "select p.proname, array(select format_type(t, null) from unnest(p.proargtypes) as t)"
        " from pg_catalog.pg_proc as p where p.pronamespace = 'actae'::regnamespace"
        " and p.proname not like '\\_%' order by 1, 2").fetchall()
    return [(str(name), list(types)) for name, types in rows]


def raw_check(conn: psycopg.Connection[Any], sql: str, strategies: list[Any],
              seen: set[str]) -> Callable[[], None]:
    @SETTINGS
    @given(st.tuples(*strategies))
    def check(args: tuple[Any, ...]) -> None:
        before = table_digest(conn)
        STATS["raw_calls"] += 1
        try:
            conn.execute(sql, args).fetchall()
        except psycopg.Error as exc:
            state = exc.sqlstate or ""
            assert state.startswith("AC"), f"{sql} {args!r:.300}: {state} {exc}"
            assert table_digest(conn) == before, f"{sql}: {state} but tables changed"
            STATS["raw_rejected"] += 1
            STATS[state] += 1
            seen.add(state)
            return
        seen.add("ok")

    return check


def test_raw_sql_rejects_only_with_actae_errors(
    conn: psycopg.Connection[Any], world: World
) -> None:
    """Any language: positional calls with well-typed values of every kind."""
    functions = api_functions(conn)
    assert len(functions) >= 16
    for name, types in functions:
        strategies = [raw_strategy(t, world) for t in types]
        if name == "purge":  # only ages that delete nothing the tests rely on
            strategies[0] = st.sampled_from([None, "-1 day", "200 years"])
        sql = f"select * from actae.{name}({', '.join(f'%s::{t}' for t in types)})"
        seen: set[str] = set()
        raw_check(conn, sql, strategies, seen)()
        if types:
            assert seen - {"ok"}, f"{name}: no generated call was rejected"


def test_deep_json(conn: psycopg.Connection[Any], client: SyncActaeClient, world: World) -> None:
    """10 000 nested arrays: PostgreSQL parses them and Actae refuses them (AC400, deeper than
    its nesting limit); the driver cannot encode more than ~1000 levels and says so with
    InvalidInput. Far deeper
    JSON is refused by PostgreSQL's own parser (stack depth, 54001) before Actae runs."""
    deep = "[" * 10_000 + "]" * 10_000
    with pytest.raises(psycopg.Error) as raised:
        conn.execute("select * from actae.claim_execution(%s, 'deep', 't', %s::jsonb)",
                     (world.channel, deep))
    assert raised.value.sqlstate == "AC400"
    # Deeper than Actae's own nesting limit (actae._limit('json_depth')): AC400, nothing kept.
    before = table_digest(conn)
    with pytest.raises(psycopg.Error) as raised:
        conn.execute("select * from actae.record_event(%s, 'deep', %s::jsonb)",
                     (f"deep-{uuid.uuid4().hex}", deep))
    assert raised.value.sqlstate == "AC400"
    assert table_digest(conn) == before
    for value in (nested(2000), nested(10_000)):
        before = table_digest(conn)
        with pytest.raises(InvalidInput):
            client.record_event(world.channel, "deep", value)
        assert table_digest(conn) == before
    far = "[" * 200_000 + "]" * 200_000
    with pytest.raises(psycopg.Error) as raised:
        conn.execute("select * from actae.record_event('x', 'deep', %s::jsonb)", (far,))
    assert raised.value.sqlstate == "54001"  # PostgreSQL's stack depth limit, not Actae's


# --- Limits at their edges ---------------------------------------------------------------

def rejects(conn: psycopg.Connection[Any], argument: str, action: Callable[[], Any]) -> None:
    before = table_digest(conn)
    with pytest.raises(InvalidInput) as raised:
        action()
    assert raised.value.detail.get("argument") == argument, raised.value.detail
    assert argument in raised.value.message
    assert table_digest(conn) == before


def text_of_bytes(size: int, char: str = "a") -> str:
    """A string of exactly ``size`` UTF-8 bytes (or one past, for multibyte chars)."""
    width = len(char.encode())
    return char * (size // width) + "a" * (size % width)


@pytest.mark.parametrize("char", ["a", "é", "€"])
def test_text_limits(conn: psycopg.Connection[Any], client: SyncActaeClient, char: str) -> None:
    tag = uuid.uuid4().hex[:8]

    def at(size: int) -> str:
        return tag + text_of_bytes(size - len(tag), char)

    # channel_id / tool_name / event_type / operation_id: 1..256 bytes; key_name 1..1024.
    client.claim_execution(at(256), at(1024), at(256), {"p": 1})
    rejects(conn, "channel_id", lambda: client.claim_execution(at(257), "k", "t", {}))
    rejects(conn, "channel_id", lambda: client.claim_execution("", "k", "t", {}))
    rejects(conn, "key_name", lambda: client.claim_execution(tag, at(1025), "t", {}))
    rejects(conn, "key_name", lambda: client.claim_execution(tag, "", "t", {}))
    rejects(conn, "tool_name", lambda: client.claim_execution(tag, "k", at(257), {}))
    rejects(conn, "tool_name", lambda: client.claim_execution(tag, "k", "", {}))
    client.record_event(tag, at(256), {}, operation_id=at(256))
    rejects(conn, "event_type", lambda: client.record_event(tag, at(257), {}))
    rejects(conn, "operation_id", lambda: client.record_event(tag, "e", {},
                                                              operation_id=at(257)))
    rejects(conn, "operation_id", lambda: client.record_event(tag, "e", {}, operation_id=""))


def test_lease_limits(conn: psycopg.Connection[Any], client: SyncActaeClient) -> None:
    channel = f"lease-{uuid.uuid4().hex[:8]}"
    for lease in (1, 86400):
        claim = client.claim_execution(channel, f"k{lease}", "t", {}, lease_seconds=lease)
        assert claim.status == "claimed" and claim.claim_token is not None
        client.heartbeat_execution(claim.execution.id, claim.claim_token, lease)
    for lease in (0, -1, 86401, 2**31 - 1):
        rejects(conn, "lease_seconds",
                lambda lease=lease: client.claim_execution(channel, "x", "t", {},
                                                           lease_seconds=lease))
        rejects(conn, "lease_seconds",
                lambda lease=lease: client.heartbeat_execution(
                    claim.execution.id, claim.claim_token, lease))  # type: ignore[arg-type]
    default = client.claim_execution(channel, "default", "t", {}, lease_seconds=None)  # type: ignore[arg-type]
    assert default.execution.lease_seconds == 60


def json_of_size(conn: psycopg.Connection[Any], size: int) -> dict[str, str]:
    """An object whose pg_column_size is exactly ``size`` bytes."""
    probe = conn.execute("select pg_column_size(%s::jsonb)",
                         (Jsonb({"p": "x" * 10_000}),)).fetchone()
    assert probe is not None
    value = {"p": "x" * (size - (int(probe[0]) - 10_000))}
    got = conn.execute("select pg_column_size(%s::jsonb)", (Jsonb(value),)).fetchone()
    assert got is not None and got[0] == size
    return value


def test_json_limits(conn: psycopg.Connection[Any], client: SyncActaeClient) -> None:
    mib = 1024 * 1024
    channel = f"json-{uuid.uuid4().hex[:8]}"
    ok, big = json_of_size(conn, mib), json_of_size(conn, mib + 1)
    claim = client.claim_execution(channel, "k", "t", ok)
    rejects(conn, "params", lambda: client.claim_execution(channel, "k2", "t", big))
    assert claim.claim_token is not None
    rejects(conn, "result",
            lambda: client.complete_execution(claim.execution.id, claim.claim_token, big))
    client.complete_execution(claim.execution.id, claim.claim_token, ok)
    client.record_event(channel, "e", ok)
    rejects(conn, "payload", lambda: client.record_event(channel, "e", big))
    state_ok, state_big = json_of_size(conn, 8 * mib), json_of_size(conn, 8 * mib + 1)
    head = client.get_channel(channel)
    client.transition_state(channel, "s", {}, state_ok, expected_version=head.state_version)
    rejects(conn, "state", lambda: client.transition_state(
        channel, "s", {}, state_big, expected_version=head.state_version + 1))
    meta_ok = json_of_size(conn, 65536)
    client.create_channel(f"{channel}-m", meta_ok)
    rejects(conn, "metadata",
            lambda: client.create_channel(f"{channel}-n", json_of_size(conn, 65537)))
    rejects(conn, "params", lambda: client.claim_execution(channel, "k3", "t", [1]))  # type: ignore[arg-type]


def test_error_and_row_count_limits(conn: psycopg.Connection[Any], client: SyncActaeClient) -> None:
    channel = f"lim-{uuid.uuid4().hex[:8]}"
    claim = client.claim_execution(channel, "k", "t", {})
    token = claim.claim_token
    assert token is not None
    rejects(conn, "error", lambda: client.fail_execution(claim.execution.id, "", token))
    rejects(conn, "error",
            lambda: client.fail_execution(claim.execution.id, "e" * 65537, token))
    client.fail_execution(claim.execution.id, "e" * 65536, token)
    client.record_event(channel, "e", {})
    for size in (1, 100_000):
        client.list_executions(max_rows=size)
        client.list_expired_leases(max_rows=size)
        client.list_events(channel, max_events=size)
    for size in (0, 100_001, -1):
        rejects(conn, "max_rows", lambda size=size: client.list_executions(max_rows=size))
        rejects(conn, "max_rows", lambda size=size: client.list_expired_leases(max_rows=size))
        rejects(conn, "max_events",
                lambda size=size: client.list_events(channel, max_events=size))


def test_operator_limits(conn: psycopg.Connection[Any], client: SyncActaeClient) -> None:
    """cancel_execution reason 1..4096 bytes; set_key_ttl 1 second..100 years (null clears)."""
    channel = f"ops-{uuid.uuid4().hex[:8]}"
    claim = client.claim_execution(channel, "k", "t", {})
    rejects(conn, "reason", lambda: client.cancel_execution(claim.execution.id, ""))
    rejects(conn, "reason", lambda: client.cancel_execution(claim.execution.id, "r" * 4097))
    client.cancel_execution(claim.execution.id, "r" * 4096)
    for ttl in ("1 second", "100 years", None):
        client.set_key_ttl(channel, ttl)
    for ttl in ("999 milliseconds", "100 years 1 second", "-1 day"):
        rejects(conn, "key_ttl", lambda ttl=ttl: client.set_key_ttl(channel, ttl))
