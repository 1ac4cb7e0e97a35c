"""Values json.dumps accepts, for checking that the driver's JSON encoding keeps their meaning."""

from __future__ import annotations

import collections
import enum
import random
from typing import Any


class Size(enum.IntEnum):
    SMALL = 1


class Colour(enum.StrEnum):
    RED = "red"


Pair = collections.namedtuple("Pair", "left right")


def nested(depth: int) -> Any:
    """A value nested depth levels deep (alternating lists and objects)."""
    value: Any = "leaf"
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


def _random_value(rnd: random.Random, depth: int) -> Any:
    kind = rnd.randrange(10 if depth < 6 else 6)
    if kind == 0:
        return rnd.choice([None, True, False])
    if kind == 1:
        return rnd.randint(-(2**80), 2**80) if rnd.random() < 0.2 else rnd.randint(-1000, 1000)
    if kind == 2:
        return rnd.choice([rnd.uniform(-1e6, 1e6), rnd.random() * 10 ** rnd.randint(-300, 300),
                           -0.0, 0.1, 1e16])
    if kind in (3, 4, 5):
        return "".join(rnd.choice("aé✓😀\"\\\n\t\x01/ z") for _ in range(rnd.randrange(12)))
    if kind in (6, 7):
        items = [_random_value(rnd, depth + 1) for _ in range(rnd.randrange(5))]
        return tuple(items) if kind == 7 else items
    keys: list[Any] = ["a", "é", "None", "null", 1, 2**70, True, False, None, 1.5, -0.0, 1e16]
    return {rnd.choice(keys): _random_value(rnd, depth + 1) for _ in range(rnd.randrange(6))}


def corpus() -> list[Any]:
    """Hand-picked edge cases, then 300 random values (seeded, the same every run)."""
    rnd = random.Random(18)
    picked: list[Any] = [
        None, True, False, 0, -1, 2**63, 2**64, 2**70, -(2**70), 10**300,
        1e16, 0.1, -0.0, 5e-324, 1e300, 1.7976931348623157e308, 123456789012345678.0,
        "", "héllo ✓ 😀", "a\tb\n\"c\"\\", "\x01\x1f\x7f\u2028\u2029</script>",
        (1, 2, (3, [4])), [], {}, [[], {}],
        {1: "int key", 2**70: "big int key", -1: "negative"},
        {True: "bool key", False: "false key"},
        {None: "none key"}, {"a": [{None: {None: 1}}]}, ({None: (1, {None: 2})},),
        {None: 1, "null": 2}, {"null": 2, None: 1}, {1: "a", "1": "b"},
        {"None": "the string None"}, {"x": '"None":'},
        {1.5: "float key", -0.0: "negative zero key", 1e16: "1e16 key"},
        Size.SMALL, {Size.SMALL: Colour.RED}, Colour.RED, Pair(1, [2]),
        collections.OrderedDict(b=1, a=2), collections.defaultdict(int, a=1),
        nested(200), nested(254), nested(255), nested(400), nested(511),
        {"messages": [{"role": "user", "content": "é" * 1000, "n": i} for i in range(50)]},
    ]
    return picked + [_random_value(rnd, 0) for _ in range(300)]
