"""Generated arguments for every Actae function: hypothesis strategies keyed by argument name
(driver) and by PostgreSQL type (raw SQL), plus the world they aim at."""

from __future__ import annotations

import math
import os
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from psycopg.types.json import Jsonb

EXAMPLES = int(os.environ.get("ACTAE_HYPOTHESIS_EXAMPLES", "40"))
SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                           HealthCheck.data_too_large, HealthCheck.large_base_example],
)


def nested(depth: int) -> Any:
    value: Any = {"leaf": True}
    for _ in range(depth):
        value = [value]
    return value


@dataclass(frozen=True)
class World:
    """Real rows for generated arguments to hit: a channel with events and state, a fork,
    owned executions (ids and tokens) and a completed one."""

    channel: str
    fork: str
    execution_ids: tuple[uuid.UUID, ...]
    tokens: tuple[uuid.UUID, ...]


# Text that every limit and encoding rule should meet: empty, at and past the byte limits
# (multibyte too), huge, NUL, lone surrogates (also what invalid UTF-8 becomes in Python with
# surrogateescape), whitespace and an injection attempt.
TEXT_EDGES = [
    "", " ", "\n", "a" * 256, "a" * 257, "é" * 128, "é" * 129, "€" * 85, "€" * 86,
    "k" * 1024, "k" * 1025, "x" * 100_000, "a\x00b", "\ud800", "\udcff",
    b"\xff\xfe".decode("utf-8", "surrogateescape"), "'; drop table actae.executions; --",
]
SAFE_TEXT_EDGES = [t for t in TEXT_EDGES if "\x00" not in t and not any(
    0xD800 <= ord(c) <= 0xDFFF for c in t)]

any_text = st.one_of(
    st.none(), st.sampled_from(TEXT_EDGES),
    st.text(alphabet=st.characters(exclude_categories=()), max_size=30),
)
safe_chars = st.characters(exclude_categories=("Cs",), exclude_characters="\x00")
safe_text = st.one_of(st.none(), st.sampled_from(SAFE_TEXT_EDGES),
                      st.text(alphabet=safe_chars, max_size=30))

json_scalar = st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30),
                        st.floats(allow_nan=False, allow_infinity=False),
                        st.text(alphabet=safe_chars, max_size=20))
safe_json = st.recursive(
    json_scalar,
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(alphabet=safe_chars, max_size=8), inner, max_size=4),
    max_leaves=12,
)
JSON_EDGES: list[Any] = [
    [], "text", 7, None, True, nested(2000), nested(10_000), {"big": "x" * 1_100_000},
    {"nul": "a\x00b"}, {"\ud800": 1}, {"nan": math.nan}, {"inf": math.inf},
    {"huge": 10**400}, {"deep": nested(900)},
]
any_json = st.one_of(st.sampled_from(JSON_EDGES), safe_json,
                     st.dictionaries(any_text.filter(lambda t: t is not None), safe_json,
                                     max_size=3))
INT_EDGES = [0, 1, -1, 86400, 86401, 100_000, 100_001, 2**31 - 1, 2**31, 2**63 - 1, 2**63,
             -(2**63) - 1]
any_int = st.one_of(st.none(), st.sampled_from(INT_EDGES), st.integers(-(2**70), 2**70))
INTERVAL_EDGES: list[Any] = ["0", "-1 second", "1 second", "100 years", "101 years",
                             "1 microsecond", "bogus", timedelta(days=-1), timedelta(0)]


def uuids(world: World) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), st.uuids(), st.sampled_from(world.execution_ids),
                     st.sampled_from(world.tokens), st.just("not-a-uuid"))


def channels(world: World) -> st.SearchStrategy[Any]:
    return st.one_of(any_text, st.sampled_from([world.channel, world.fork]))


def driver_strategies(world: World) -> dict[str, st.SearchStrategy[Any]]:
    """Strategy for each argument name of the driver's call builders. A builder with an
    argument missing here fails the test: every argument is covered."""
    texts = {name: any_text for name in (
        "key_name", "tool_name", "event_type", "operation_id", "error", "reason", "status",
        "traceparent")}
    jsons = {name: any_json for name in ("params", "result", "payload", "state", "metadata")}
    ints = {name: any_int for name in (
        "lease_seconds", "seconds", "max_rows", "max_runs", "max_events", "batch_size",
        "expected_cursor", "expected_version", "after_cursor", "at_cursor", "version")}
    return {
        **texts, **jsons, **ints,
        "channel_id": channels(world), "source_channel_id": channels(world),
        "new_channel_id": any_text,
        "execution_id": uuids(world), "claim_token": uuids(world),
        "retryable": st.one_of(st.none(), st.booleans()),
        "lease_expired": st.one_of(st.none(), st.booleans()),
        "dedup_fields": st.one_of(st.none(), st.lists(any_text, max_size=4),
                                  st.sampled_from([[], [""], ["missing"]])),
        "tool_policies": st.one_of(
            st.none(), st.sampled_from([[], "replay", {"t": "bogus"}, {"t": 1}]),
            st.dictionaries(any_text.filter(lambda t: t is not None),
                            st.sampled_from(["replay", "live", "block"]), max_size=3)),
        "key_ttl": st.one_of(st.none(), st.sampled_from(INTERVAL_EDGES),
                             st.timedeltas(min_value=timedelta(days=-10),
                                           max_value=timedelta(days=40000))),
        # Runs (sql/40_runs.sql).
        **{name: any_text for name in ("queue", "worker", "agent", "sleep_key", "wait_key")},
        "input": any_json,
        "agents": st.one_of(st.none(), st.lists(any_text, max_size=3), st.just([])),
        "max_attempts": any_int,
        "timeout": any_int,
        "run_at": st.one_of(st.none(), st.datetimes(timezones=st.just(UTC))),
        # purge deletes what is past its lifetime: valid ages stay far beyond any test data.
        "older_than": st.one_of(st.none(), st.sampled_from(
            ["-1 second", "bogus", timedelta(days=-1), timedelta(days=200 * 365)])),
        # Console reads and annotations (sql/60_console.sql).
        **{name: any_text for name in (
            "display_name", "note", "agent", "tag", "parent_channel_id", "before_channel_id")},
        **{name: any_int for name in (
            "expected_revision", "after_clock", "cursor", "max_results", "max_changes")},
        "channel_a": channels(world), "channel_b": channels(world),
        "tags": st.one_of(st.none(), st.lists(any_text, max_size=40)),
        **{name: st.one_of(st.none(), st.datetimes(timezones=st.just(UTC))) for name in (
            "created_after", "created_before", "before_created_at")},
        # LangGraph saver (actae.langgraph_*): thread ids are random text, so a generated
        # delete or prune never reaches another test's thread.
        **{name: any_text for name in (
            "thread_id", "source_thread_id", "target_thread_id", "new_thread_id",
            "checkpoint_ns", "checkpoint_id", "parent_checkpoint_id", "task_id", "task_path",
            "before", "strategy")},
        "checkpoint": st.one_of(any_json, st.sampled_from([
            {"channel_values": {"a": {"type": "msgpack", "blob": 1}}},
            {"channel_values": {"a": {"type": "msgpack", "blob": "x"}}},
            {"channel_values": {"a": "blob"}}])),
        "filter": any_json, "limit": any_int,
        "writes": st.one_of(any_json, st.sampled_from([
            [{"idx": 0, "channel": "c", "value": {"value": 1}}],
            [{"idx": "x", "channel": "c", "value": 1}], [{"idx": 1e12, "channel": "c"}],
            [{"idx": 0.5, "channel": 1, "value": None}], ["w"]])),
        "blobs": st.one_of(st.none(), st.lists(st.binary(max_size=16), max_size=3)),
        "thread_ids": st.one_of(st.none(), st.lists(any_text, max_size=3)),
        "run_ids": st.one_of(st.none(), st.lists(any_text, max_size=3)),
        # Batches (sql/12_batch.sql) and list_completed.
        "key_names": st.one_of(st.none(), st.lists(any_text, max_size=3)),
        "tool_names": st.one_of(st.none(), st.lists(any_text, max_size=3)),
        "execution_ids": st.one_of(st.none(), st.lists(uuids(world), max_size=3)),
        "claim_tokens": st.one_of(st.none(), st.lists(uuids(world), max_size=3)),
        "results": st.one_of(st.none(), st.lists(any_json, max_size=3)),
        "after_key_name": any_text,
    }


#: arguments whose strategy differs in one builder (a list per element in a batch).
BATCH_STRATEGIES: dict[str, st.SearchStrategy[Any]] = {
    "params": st.one_of(st.none(), st.lists(st.one_of(
        st.dictionaries(st.text(max_size=4), st.one_of(st.integers(), st.text(max_size=4)),
                        max_size=3),
        st.sampled_from([{"big": "x" * 1_100_000}, {"": None}])), max_size=3)),
    "dedup_fields": st.one_of(st.none(), st.lists(
        st.one_of(st.none(), st.lists(any_text, max_size=2)), max_size=3)),
}


def raw_strategy(pg_type: str, world: World) -> st.SearchStrategy[Any]:
    """Values a caller in any language could bind to a parameter of this PostgreSQL type
    (so: valid UTF-8 without NUL, integers in the type's range, well-formed JSON)."""
    if pg_type == "text":
        return st.one_of(safe_text, st.sampled_from([world.channel, world.fork]))
    if pg_type == "jsonb":
        return st.one_of(st.none(), safe_json.map(Jsonb),
                         st.sampled_from([Jsonb([]), Jsonb("s"), Jsonb({"big": "x" * 1_100_000}),
                                          Jsonb(nested(900))]))
    if pg_type == "integer":
        return st.one_of(st.none(), st.integers(-(2**31), 2**31 - 1),
                         st.sampled_from([0, 1, 86400, 86401, 100_000, 100_001]))
    if pg_type == "bigint":
        return st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1), st.sampled_from([0, 1]))
    if pg_type == "uuid":
        return st.one_of(st.none(), st.uuids(), st.sampled_from(world.execution_ids),
                         st.sampled_from(world.tokens))
    if pg_type == "boolean":
        return st.one_of(st.none(), st.booleans())
    if pg_type == "text[]":
        return st.one_of(st.none(), st.lists(safe_text, max_size=4))
    if pg_type in ("jsonb[]", "uuid[]"):
        element = raw_strategy(pg_type[:-2], world)
        return st.one_of(st.none(), st.lists(element, max_size=3))
    if pg_type == "timestamp with time zone":
        return st.one_of(st.none(), st.datetimes(
            min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30),
            timezones=st.just(UTC)))
    if pg_type == "bytea[]":
        return st.one_of(st.none(), st.lists(st.one_of(st.none(), st.binary(max_size=16)),
                                             max_size=3))
    if pg_type == "interval":
        return st.one_of(st.none(), st.timedeltas(min_value=timedelta(days=-10),
                                                  max_value=timedelta(days=40000)))
    raise AssertionError(f"no raw strategy for PostgreSQL type {pg_type}: add one")
