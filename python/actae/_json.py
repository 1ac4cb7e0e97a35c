"""How the driver encodes a JSON argument: pydantic_core.to_json, with json.dumps's meaning.

Every value json.dumps accepted encodes to the same JSON value as before (jsonb-equal), and
every value it refused for its nesting or for being circular or of an unknown type raises
the same error as before. NaN and Infinity are written as the constants json.dumps writes,
so the server refuses them as it did. Values json.dumps refused but pydantic can encode
(datetime, UUID, Decimal, Enum, bytes, sets, pydantic models, dataclasses) are encoded as
pydantic encodes them: see docs/python.md, "JSON arguments".
"""

from __future__ import annotations

import json
import math
from typing import Any

from psycopg.types.json import Jsonb
from pydantic_core import PydanticSerializationError, to_json, to_jsonable_python

# Dict keys pydantic writes differently from json.dumps: None ("None", json.dumps "null")
# and the non-finite floats ("nan", "inf", "-inf"; json.dumps "NaN", "Infinity").
# Searching the output costs microseconds; only a value holding one is walked.
_KEY_MARKERS = (b'"None":', b'"nan":', b'inf":')


def dumps(value: Any) -> bytes:
    """The JSON text of value, as UTF-8 bytes."""
    try:
        data = to_json(value, inf_nan_mode="constants")
    except PydanticSerializationError:
        # Nested deeper than pydantic's 254 levels (json.dumps went to about 1000, the
        # server accepts 512), a lone surrogate (the server refuses it, as before), or a
        # value neither can encode: json.dumps decides, raising what it always raised.
        return json.dumps(value, default=_default).encode()
    if any(marker in data for marker in _KEY_MARKERS):
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
    """value with None and non-finite float dict keys named as json.dumps names them."""
    if isinstance(value, dict):
        return {_key(k): _json_keys(v) for k, v in value.items()}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list | tuple):
        return [_json_keys(v) for v in value]  # pyright: ignore[reportUnknownVariableType]
    return value


def _key(key: Any) -> Any:
    if key is None:
        return "null"
    if isinstance(key, float) and not math.isfinite(key):
        return json.dumps(key)
    return key
