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
values): docs/python.md, "JSON results and the caller's connections".
"""

from __future__ import annotations

import json
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
        return json.dumps(value, default=_default).encode()
    if _none_key(data):
        data = to_json(_json_keys(value), inf_nan_mode="constants")
    return data


def jsonb(value: Any) -> Jsonb:
    """value adapted as a jsonb parameter, encoded by dumps."""
    return Jsonb(value, dumps)


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



def loads(data: str | bytes) -> Any:
    """The value of JSON text the server sent (json / jsonb columns): pydantic_core's
    parser, json.loads's values; json.loads decides what the parser refuses (nesting deeper
    than its 200 levels, numbers it cannot hold), raising what it always raised."""
    try:
        return from_json(data)
    except ValueError:
        return json.loads(data)
