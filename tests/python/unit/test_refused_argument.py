"""The driver names an argument the server refused before Actae's function ran from the
error's SQLSTATE and its type's name, not from English text: a server whose lc_messages is
another language translates the message around the type's name."""

from __future__ import annotations

import pytest
from psycopg.types.json import Jsonb

from actae.errors import _refused_argument  # pyright: ignore[reportPrivateUsage]

SQL = ("select * from actae.f(%(lease_seconds)s::integer, %(after)s::bigint,"
       " %(payload)s::jsonb, %(id)s::uuid)")


@pytest.mark.parametrize("message", [
    "integer out of range",
    "integer ist außerhalb des gültigen Bereichs",
    "l'entier est en dehors des limites",
])
def test_an_integer_beyond_its_type_is_named_in_any_language(message: str) -> None:
    refused = _refused_argument(SQL, {"lease_seconds": 2**31, "after": 1}, "22003", message)
    assert refused == ("lease_seconds",
                       "is out of range for a PostgreSQL integer: 2147483648")


@pytest.mark.parametrize("message", [
    "invalid input syntax for type json",
    "ungültige Eingabesyntax für Typ json",
    "syntaxe en entrée invalide pour le type json",
])
def test_json_with_nan_is_named_in_any_language(message: str) -> None:
    params = {"lease_seconds": 1, "payload": Jsonb({"x": float("nan")})}
    refused = _refused_argument(SQL, params, "22P02", message)
    assert refused is not None and refused[0] == "payload"


def test_another_types_refusal_is_not_blamed_on_json_beside_it() -> None:
    params = {"payload": Jsonb({"x": float("nan")}), "id": "not-a-uuid"}
    assert _refused_argument(SQL, params, "22P02", "ungültige Eingabesyntax für Typ uuid") is None
