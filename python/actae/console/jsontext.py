"""JSON text for people (the console's pages, the CLI's lines).

json.dumps writes a decimal.Decimal only through its `default` hook, as a string; here a
finite Decimal is written as the bare JSON number it is (the driver reads an integer with
more digits than Python converts as a Decimal: actae._json). Other values json.dumps cannot
write are written as their str().
"""

from __future__ import annotations

import json
import re
import uuid
from decimal import Decimal
from typing import Any

# A Decimal is first written as a string holding a NUL (which no jsonb string holds) and a
# per-process nonce, then that string is replaced by the number's digits.
_NONCE = uuid.uuid4().hex
_TOKEN = re.compile(r'"\\u0000' + _NONCE + r':([0-9]+)\\u0000"')


def json_text(value: Any, *, indent: int | None = None, sort_keys: bool = False,
              ensure_ascii: bool = False) -> str:
    """value as json.dumps writes it with these options, finite Decimals as JSON numbers."""
    numbers: list[str] = []

    def default(v: Any) -> Any:
        if isinstance(v, Decimal) and v.is_finite():
            numbers.append(str(v))
            return f"\x00{_NONCE}:{len(numbers) - 1}\x00"
        return str(v)

    text = json.dumps(value, indent=indent, sort_keys=sort_keys, ensure_ascii=ensure_ascii,
                      default=default)
    if not numbers:
        return text
    return _TOKEN.sub(lambda m: numbers[int(m[1])], text)


_PLAIN_STEP = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")


def path_text(path: list[str]) -> str:
    """A state path for people: its steps joined by dots, each step that is not a plain name
    or an index written as a JSON string, so a key "a.b" (`"a.b"`) and the key b inside a
    (`a.b`) read differently; "(root)" for the whole state."""
    if not path:
        return "(root)"
    return ".".join(step if _PLAIN_STEP.fullmatch(step) else json.dumps(step, ensure_ascii=False)
                    for step in path)
