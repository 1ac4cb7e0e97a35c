"""The worker's prefetch replays a completed tool call without a round trip only when the
server would replay it too: same tool, dedup_fields and params, with JSON types told apart
as the server's fingerprint tells them apart (true is not 1, 1 is not 1.0)."""

from __future__ import annotations

from typing import Any

import pytest

from actae.models import Execution
from actae.worker import _same_call


def done(params: Any, tool_name: str = "charge", dedup_fields: Any = None) -> Execution:
    return Execution.model_construct(tool_name=tool_name, params=params,
                                     dedup_fields=dedup_fields)


@pytest.mark.parametrize("stored, given", [
    ({"a": 1, "b": "x"}, {"b": "x", "a": 1}),
    ({"n": [1, 2.5, None, True]}, {"n": [1, 2.5, None, True]}),
    ({"deep": {"y": 1, "x": [{"k": "v"}]}}, {"deep": {"x": [{"k": "v"}], "y": 1}}),
])
def test_the_same_params_in_any_key_order_match(stored: Any, given: Any) -> None:
    assert _same_call(done(stored), "charge", given, None)


@pytest.mark.parametrize("stored, given", [
    ({"flag": 1}, {"flag": True}),
    ({"flag": False}, {"flag": 0}),
    ({"n": 1.0}, {"n": 1}),
    ({"n": [1]}, {"n": [1.0]}),
    ({"n": {"m": 2}}, {"n": {"m": 2.0}}),
    ({"a": 1}, {"a": 1, "b": None}),
    ({"a": [1, 2]}, {"a": [2, 1]}),
    ({"s": "1"}, {"s": 1}),
])
def test_params_python_calls_equal_but_json_does_not_go_to_the_server(
    stored: Any, given: Any
) -> None:
    assert not _same_call(done(stored), "charge", given, None)


def test_tool_name_and_dedup_fields_count() -> None:
    assert not _same_call(done({"a": 1}), "refund", {"a": 1}, None)
    assert _same_call(done({"a": 1}, dedup_fields=["a"]), "charge", {"a": 1}, ["a", "a"])
    assert not _same_call(done({"a": 1}, dedup_fields=["a"]), "charge", {"a": 1}, None)
