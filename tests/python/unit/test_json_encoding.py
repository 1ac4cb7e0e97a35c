"""The driver's JSON encoding (actae._json.dumps): json.dumps's meaning, pydantic's speed.

Server-side equality of the old and new encodings is in
tests/python/integration/test_json_arguments.py."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import json
import math
import uuid
from typing import Any

import pydantic
import pytest
from psycopg.types.json import Jsonb

from actae import _json, calls
from tests.python.support.json_corpus import corpus, nested


def _canonical(text: str | bytes) -> str:
    """The JSON text parsed and written back with sorted keys: equal for equal values."""
    return json.dumps(json.loads(text), sort_keys=True)


def test_every_value_json_dumps_accepts_means_the_same() -> None:
    # one test for the whole corpus; the assertion names every value that differs or raises
    values = corpus()
    different: list[tuple[int, str, str]] = []
    for i, value in enumerate(values):
        try:
            if _canonical(_json.dumps(value)) != _canonical(json.dumps(value)):
                different.append((i, repr(value)[:80], "differs"))
        except Exception as exc:  # noqa: BLE001 - reported with the others below
            different.append((i, repr(value)[:80], repr(exc)))
    assert different == [], different
    assert len(values) > 300


def test_keys_are_named_as_json_dumps_names_them() -> None:
    assert json.loads(_json.dumps({None: 1})) == {"null": 1}
    assert json.loads(_json.dumps([{"a": ({None: 2},)}])) == [{"a": [{"null": 2}]}]
    assert json.loads(_json.dumps({2: "a", True: "b", 2**70: "c", 1.5: "d"})) == {
        "2": "a", "true": "b", str(2**70): "c", "1.5": "d"}
    # the one documented difference: non-finite float keys take pydantic's names
    keys = json.loads(_json.dumps({float("nan"): 1, float("inf"): 2, float("-inf"): 3}))
    assert keys == {"nan": 1, "inf": 2, "-inf": 3}
    # a string "None" key is not a None key
    assert json.loads(_json.dumps({"None": 1, None: 2})) == {"None": 1, "null": 2}
    # the None key is found however many capital Ns come before it
    for ns in (0, 1, 15, 16, 17, 100):
        value = {"text": "N" * ns, "x": [{"NNone": 1}, {None: 2}]}
        assert json.loads(_json.dumps(value))["x"][1] == {"null": 2}, ns
        assert b"null" not in _json.dumps({"text": "N" * ns, "None": 1})


def test_nan_and_infinity_are_written_as_json_dumps_writes_them() -> None:
    # the server refuses these constants; pydantic's default (null) would store a null
    assert _json.dumps(float("nan")) == b"NaN"
    assert _json.dumps([float("inf"), float("-inf")]) == b"[Infinity,-Infinity]"
    assert b"null" not in _json.dumps({"x": float("nan")})


def test_text_is_utf8_not_escaped() -> None:
    assert _json.dumps("é✓😀") == "\"é✓😀\"".encode()


def test_big_ints_and_floats_keep_their_value() -> None:
    assert _json.dumps(2**70) == str(2**70).encode()
    assert json.loads(_json.dumps([1e16, 0.1, -0.0])) == [1e16, 0.1, -0.0]
    assert math.copysign(1, json.loads(_json.dumps(-0.0))) == -1


def test_deep_values_encode_as_before() -> None:
    # pydantic stops at 254 levels; json.dumps takes over up to its own limit
    for depth in (253, 254, 255, 600, 900):
        assert json.loads(_json.dumps(nested(depth))) == json.loads(json.dumps(nested(depth)))
    # Deeper still, json.dumps raises RecursionError on Python 3.11 and encodes on 3.13
    # (its C encoder's limit moved): _json.dumps does what this Python's json.dumps does.
    try:
        expected: bytes | None = json.dumps(nested(5000)).encode()
    except RecursionError:
        expected = None
    if expected is None:
        with pytest.raises(RecursionError):
            _json.dumps(nested(5000))
    else:
        assert json.loads(_json.dumps(nested(5000))) == json.loads(expected)


def test_what_neither_encodes_raises_what_json_dumps_raised() -> None:
    with pytest.raises(TypeError, match="Object of type object is not JSON serializable"):
        _json.dumps({"a": [object()]})
    circular: list[Any] = []
    circular.append(circular)
    with pytest.raises(ValueError, match="Circular reference"):
        _json.dumps(circular)
    with pytest.raises(TypeError, match="not JSON serializable"):
        _json.dumps([nested(300), object()])


class Status(enum.Enum):
    OPEN = "open"


class Order(pydantic.BaseModel):
    order_id: str
    amount: decimal.Decimal


@dataclasses.dataclass
class Point:
    x: int
    y: int


AT = datetime.datetime(2026, 12, 3, 17, 0, tzinfo=datetime.UTC)
ID = uuid.UUID("12345678-1234-5678-1234-567812345678")


@pytest.mark.parametrize(("value", "expected"), [
    (AT, "2026-12-03T17:00:00Z"),
    (datetime.date(2026, 12, 3), "2026-12-03"),
    (datetime.timedelta(seconds=90), "PT1M30S"),
    (ID, "12345678-1234-5678-1234-567812345678"),
    (decimal.Decimal("12.50"), "12.50"),
    (Status.OPEN, "open"),
    (b"caf\xc3\xa9", "café"),
    ({3, 1, 2}, [1, 2, 3]),
    (frozenset(["a"]), ["a"]),
    (Order(order_id="4471", amount=decimal.Decimal("42.00")),
     {"order_id": "4471", "amount": "42.00"}),
    (Point(1, 2), {"x": 1, "y": 2}),
    ({"at": [AT], "id": ID}, {"at": ["2026-12-03T17:00:00Z"],
                              "id": "12345678-1234-5678-1234-567812345678"}),
])
def test_values_json_dumps_refused_are_encoded_as_pydantic_encodes_them(
    value: Any, expected: Any
) -> None:
    with pytest.raises(TypeError):
        json.dumps(value)
    assert json.loads(_json.dumps(value)) == expected
    # the same when the value sits deeper than pydantic's own limit
    assert json.loads(_json.dumps([nested(300), value]))[1] == expected


def test_bytes_that_are_not_utf8_are_refused() -> None:
    with pytest.raises(TypeError, match="bytes"):
        _json.dumps({"blob": b"\xff\xfe"})
    with pytest.raises(TypeError, match="bytes"):
        _json.dumps([nested(300), b"\xff"])


def test_every_call_builder_adapts_json_with_the_driver_encoding() -> None:
    adapted = [
        calls.transition_state("c", "e", {"p": 1}, {"s": 1}, 0).params["state"],
        calls.claim_execution("c", "k", "t", {"a": 1}).params["params"],
        calls.claim_executions("c", ["k"], ["t"], [{"a": 1}], [["a"]]).params["dedup_fields"][0],
        calls.complete_executions([ID], [ID], [{"r": 1}]).params["results"][0],
    ]
    for value in adapted:
        assert isinstance(value, Jsonb)
        assert value.dumps is _json.dumps
