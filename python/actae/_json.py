"""How the driver encodes a JSON argument: pydantic_core.to_json, with json.dumps's meaning.

Every value json.dumps accepted encodes to the same JSON value as before (jsonb-equal), and
every value it refused for its nesting or for being circular or of an unknown type raises
the same error as before. NaN and Infinity are written as the constants json.dumps writes,
so the server refuses them as it did. One difference, not worth a second pass over every
value: a NaN or infinite float used as a dict key is named "nan", "inf", "-inf" (json.dumps:
"NaN", "Infinity", "-Infinity"). Values json.dumps refused but pydantic can encode
(datetime, UUID, Decimal, Enum, bytes, sets, pydantic models, dataclasses) are encoded as
pydantic encodes them: see docs/python.md, "JSON arguments".

``loads`` decodes the JSON the server sends back (pydantic_core.from_json, json.loads's
values): docs/python.md, "JSON results and the caller's connections". An integer with more
digits than Python converts (sys.get_int_max_str_digits(), 4300 by default; jsonb prints
1e5000 as 5001 digits) is read as a decimal.Decimal, and ``dumps`` writes such a Decimal
back as that JSON number.
"""

from __future__ import annotations

import json
import re
import sys
import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from psycopg.types.json import Jsonb
from pydantic_core import PydanticSerializationError, from_json, to_json, to_jsonable_python

# pydantic writes a None dict key "None" where json.dumps wrote "null". The output holds
# '"None":' exactly when some key is None or "None"; a capital N is found at memchr speed
# (a substring search of 64 KB costs about as much as encoding it), so the few Ns of a
# value are checked one by one, and only a value with many falls back to the search.
_NONE_KEY = b'"None":'
_FEW = 16


def _none_key(data: bytes) -> bool:
    """Whether data (JSON text from to_json) may hold a None dict key."""
    at = data.find(b"N")
    for _ in range(_FEW):
        if at < 0:
            return False
        if data[at - 1:at + 6] == _NONE_KEY:
            return True
        at = data.find(b"N", at + 1)
    return at >= 0 and _NONE_KEY in data


def dumps(value: Any) -> bytes:
    """The JSON text of value, as UTF-8 bytes."""
    try:
        data = to_json(value, inf_nan_mode="constants")
    except PydanticSerializationError:
        # Nested deeper than pydantic's 254 levels (json.dumps went to about 1000, the
        # server accepts 512), a lone surrogate (the server refuses it, as before), or a
        # value neither can encode: json.dumps decides, raising what it always raised.
        data = json.dumps(value, default=_default).encode()
        if _digit_run(data):
            data = _with_big_integers(value, data, _dumps_fallback)
        return data
    if _none_key(data):
        value = _json_keys(value)
        data = to_json(value, inf_nan_mode="constants")
    if _digit_run(data):
        data = _with_big_integers(value, data, _to_json)
    return data


def _to_json(value: Any) -> bytes:
    return to_json(value, inf_nan_mode="constants")


def _dumps_fallback(value: Any) -> bytes:
    return json.dumps(value, default=_default).encode()


def jsonb(value: Any) -> Jsonb:
    """value adapted as a jsonb parameter, encoded by dumps; a Jsonb as it is (the command
    line sends the JSON text it was given, so its numbers are stored as written)."""
    if type(value) is Jsonb:
        return value
    return Jsonb(value, dumps)


def text(json_text: str) -> Jsonb:
    """JSON text, sent as it is (its numbers exactly as written: not through float)."""
    return Jsonb(json_text, _as_is)


def _as_is(json_text: str) -> str:
    return json_text


def _default(value: Any) -> Any:
    """json.dumps's fallback: what pydantic makes of value, or json.dumps's own TypeError."""
    try:
        return to_jsonable_python(value, inf_nan_mode="constants")
    except ValueError:  # PydanticSerializationError, or bytes that are not UTF-8
        raise TypeError(
            f"Object of type {type(value).__name__} is not JSON serializable") from None


def _json_keys(value: Any) -> Any:
    """value with its None dict keys named "null", as json.dumps names them."""
    if isinstance(value, dict):
        return {"null" if k is None else k: _json_keys(v) for k, v in value.items()}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list | tuple):
        return [_json_keys(v) for v in value]  # pyright: ignore[reportUnknownVariableType]
    return value



# An integer beyond Python's int limit (sys.get_int_max_str_digits()) is read as a Decimal
# and written back as a JSON number: pydantic (and _default) write a Decimal as a string, so
# dumps puts a token in its place and the digits in place of the token's string. The token
# holds a NUL, which no jsonb string holds, and a per-process nonce.
_NONCE = uuid.uuid4().hex
_TOKEN = re.compile(rb'"\\u0000' + _NONCE.encode() + rb':([0-9]+)\\u0000"')


def _int_limit() -> int:
    """The most digits Python converts to an int (0: no limit)."""
    return sys.get_int_max_str_digits()


def int_or_decimal(text: str) -> int | Decimal:
    """An integer json.loads read: an int, or a Decimal when it has more digits than
    Python converts (int() refuses it with ValueError; the scanner checked the syntax)."""
    try:
        return int(text)
    except ValueError:
        return Decimal(text)


def _big_integer(value: Decimal) -> bool:
    """Whether value is an integer loads reads as a Decimal: exponent 0, more digits than
    Python converts."""
    limit = _int_limit()
    if not limit or not value.is_finite():
        return False
    parts = value.as_tuple()
    return parts.exponent == 0 and len(parts.digits) > limit


def _digit_run(data: bytes) -> bool:
    """Whether data (an encoded value) may hold a big integer Decimal, written as a string of
    more than _int_limit() digits. Such a run of n digits holds at least two of the bytes at
    every (n // 2)th offset, and from the first of them at least n // 2 digits follow; only
    those bytes are looked at (a few dozen in 64 KB), so a value without such a run costs
    next to nothing. A long run of digits in a string only costs _with_big_integers' pass."""
    limit = _int_limit()
    if not limit or len(data) <= limit:
        return False
    step = max((limit + 1) // 2, 1)
    need = limit + 1 - step
    for at in range(step, len(data) - need + 1, step):
        if 48 <= data[at] <= 57 and data[at:at + need].isdigit():
            return True
    return False


def _with_big_integers(value: Any, data: bytes, encode: Callable[[Any], bytes]) -> bytes:
    """data (value as encode writes it) with the big integer Decimals of value (in dicts,
    lists and tuples) written as JSON numbers; data itself when value holds none, or is
    nested too deeply to walk (then they stay text, as before)."""
    numbers: list[str] = []

    def tokens(v: Any) -> Any:
        if isinstance(v, Decimal):
            if not _big_integer(v):
                return v
            numbers.append(str(v))
            return f"\x00{_NONCE}:{len(numbers) - 1}\x00"
        if isinstance(v, dict):
            return {k: tokens(x) for k, x in v.items()}  # pyright: ignore[reportUnknownVariableType]
        if isinstance(v, list | tuple):
            return [tokens(x) for x in v]  # pyright: ignore[reportUnknownVariableType]
        return v

    try:
        marked = tokens(value)
    except RecursionError:
        return data
    if not numbers:
        return data
    return _TOKEN.sub(lambda m: numbers[int(m[1])].encode(), encode(marked))


def loads(data: str | bytes) -> Any:
    """The value of JSON text the server sent (json / jsonb columns): pydantic_core's
    parser, json.loads's values; json.loads decides what the parser refuses (nesting deeper
    than its 200 levels, numbers it cannot hold), raising what it always raised, except
    that an integer with more digits than Python converts (sys.get_int_max_str_digits())
    is read as a decimal.Decimal instead of raising ValueError."""
    try:
        return from_json(data)
    except ValueError:
        return json.loads(data, parse_int=int_or_decimal)
