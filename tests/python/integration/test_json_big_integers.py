"""A number no JSON reader of Python can hold never makes a read fail: an integer with more
digits than Python converts (jsonb prints 1e5000 as 5001 digits) is read as a Decimal, and
written back through the driver as the same JSON number."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from decimal import Decimal

import psycopg
import pytest

from actae import SyncActaeClient, _json

BIG = "1" + "0" * 5000  # what jsonb prints for 1e5000


@pytest.fixture
def client(dsn: str) -> Iterator[SyncActaeClient]:
    with SyncActaeClient(dsn, max_size=1) as c:
        yield c


def test_loads_reads_integers_beyond_the_limit_as_decimals() -> None:
    limit = sys.get_int_max_str_digits()
    edge = "9" * limit
    text = f'{{"big": {BIG}, "neg": -{BIG}, "edge": {edge}, "list": [{BIG}, 1, 2.5, "{BIG}"]}}'
    value = _json.loads(text)
    assert value["big"] == Decimal(BIG) and isinstance(value["big"], Decimal)
    assert value["neg"] == Decimal("-" + BIG) and isinstance(value["neg"], Decimal)
    assert value["edge"] == int(edge) and type(value["edge"]) is int  # Python reads it
    assert value["list"][1:] == [1, 2.5, BIG]  # a string of digits stays a string
    assert [type(v) for v in value["list"]] == [Decimal, int, float, str]


@pytest.mark.parametrize("text", [
    '{"a": 1, "b": -2, "c": 1.5, "d": 1e400, "e": 0.10000000000000000001, "f": [true, null]}',
    '{"int": ' + "7" * 4000 + ', "float": 1' + "0" * 4400 + '.5}',  # the fallback's floats
    "[" * 300 + '1, -0, 2.5, "x", {"k": 3}' + "]" * 300,  # deeper than pydantic's parser
])
def test_every_value_python_reads_is_read_as_before(text: str) -> None:
    value = _json.loads(text)
    assert value == json.loads(text)
    assert repr(value) == repr(json.loads(text))  # the same types, down to every leaf


def test_a_big_integer_round_trips_through_the_database(
    client: SyncActaeClient, conn: psycopg.Connection, unique: Callable[[str], str]
) -> None:
    source, copy = unique("bigint"), unique("bigint-copy")
    stored = '{"n": 1e5000, "neg": -1e4400, "nested": {"l": [1e4301, 7]}, "small": 12, "f": 1.5}'
    conn.execute("select actae.record_event(%s, 'step', %s::jsonb)", (source, stored))
    [event] = client.list_events(source)
    payload = event.payload
    assert payload["n"] == Decimal(BIG) and isinstance(payload["n"], Decimal)
    assert type(payload["small"]) is int and type(payload["f"]) is float

    client.record_event(copy, "step", payload)  # written back through _json.dumps
    row = conn.execute(
        "select e.payload = %s::jsonb, jsonb_typeof(e.payload -> 'n'),"
        " jsonb_typeof(e.payload #> '{nested,l,0}') from actae.events as e"
        " where e.channel_id = %s", (stored, copy)).fetchone()
    assert row == (True, "number", "number")


def test_other_decimals_and_digit_strings_are_written_as_before(
    client: SyncActaeClient, conn: psycopg.Connection, unique: Callable[[str], str]
) -> None:
    channel = unique("bigint-text")
    value = {"d": Decimal("1.5"), "e": Decimal("1E+5000"), "s": BIG, "small": Decimal(12)}
    client.record_event(channel, "step", value)
    row = conn.execute(
        "select e.payload from actae.events as e where e.channel_id = %s", (channel,)
    ).fetchone()
    assert row is not None
    assert row[0] == {"d": "1.5", "e": "1E+5000", "s": BIG, "small": "12"}  # pydantic's text


def test_a_big_integer_deeper_than_pydantic_goes_is_written_as_a_number(
    client: SyncActaeClient, conn: psycopg.Connection, unique: Callable[[str], str]
) -> None:
    channel = unique("bigint-deep")
    deep: object = Decimal(BIG)
    for _ in range(300):  # json.dumps encodes it (pydantic stops at 254 levels)
        deep = [deep]
    client.record_event(channel, "step", {"deep": deep})
    row = conn.execute(
        "select e.payload = jsonb_build_object('deep', (repeat('[', 300) || '1e5000'"
        " || repeat(']', 300))::jsonb) from actae.events as e where e.channel_id = %s",
        (channel,)).fetchone()
    assert row == (True,)
