"""What ActaeSaver gives back is what LangGraph's own savers give back, in the corners the
conformance suite does not reach: list() of a config that names a checkpoint, list(limit=0),
floats that JSON writes with an exponent (and -0.0), and the order of pending writes in a
database whose collation is not C. LangGraph's InMemorySaver is the reference."""

from __future__ import annotations

import math
import uuid
from typing import Any

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver, empty_checkpoint
from langgraph.checkpoint.memory import InMemorySaver

from actae.langgraph import ActaeSaver
from tests.python.support.databases import fresh_database

FLOATS = {"big": 1e16, "bigger": 2.5e20, "negative_zero": -0.0, "one": 1.0, "small": 1e-7,
          "huge": -1.7976931348623157e308}


def _thread(saver: BaseCheckpointSaver[Any], thread: str, steps: int) -> list[str]:
    """Put `steps` checkpoints in one thread; their ids, oldest first."""
    config: Any = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    ids = []
    for step in range(steps):
        checkpoint = empty_checkpoint()
        checkpoint["channel_values"] = {"n": step}
        checkpoint["channel_versions"] = {"n": step + 1}
        config = saver.put(config, checkpoint, {"step": step}, {"n": step + 1})
        ids.append(config["configurable"]["checkpoint_id"])
    return ids


def _listed(saver: BaseCheckpointSaver[Any], config: Any, **kwargs: Any) -> list[str]:
    return [t.config["configurable"]["checkpoint_id"] for t in saver.list(config, **kwargs)]


def test_list_of_a_config_naming_a_checkpoint_lists_that_one(dsn: str) -> None:
    thread = f"fid-{uuid.uuid4().hex}"
    with ActaeSaver.from_conn_string(dsn, max_size=1) as saver:
        reference = InMemorySaver()
        ours, theirs = _thread(saver, thread, 3), _thread(reference, thread, 3)
        for i in range(3):
            named = {"configurable": {"thread_id": thread, "checkpoint_ns": "",
                                      "checkpoint_id": ours[i]}}
            assert _listed(saver, named) == [ours[i]]
            named["configurable"]["checkpoint_id"] = theirs[i]
            assert _listed(reference, named) == [theirs[i]]
        whole = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
        assert _listed(saver, whole) == ours[::-1]
        assert _listed(saver, whole, limit=0) == _listed(reference, whole, limit=0) == []


def test_floats_come_back_as_floats(dsn: str) -> None:
    thread = f"fid-{uuid.uuid4().hex}"
    config: Any = {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}
    with ActaeSaver.from_conn_string(dsn, max_size=1) as saver:
        checkpoint = empty_checkpoint()
        checkpoint["channel_values"] = dict(FLOATS)
        versions = {name: 1 for name in FLOATS}
        checkpoint["channel_versions"] = dict(versions)
        stored = saver.put(config, checkpoint, {}, versions)
        saver.put_writes(stored, list(FLOATS.items()), "task-1")
        got = saver.get_tuple(stored)
    assert got is not None
    values = got.checkpoint["channel_values"]
    writes = {channel: value for _, channel, value in got.pending_writes or []}
    for name, value in FLOATS.items():
        for back in (values[name], writes[name]):
            assert type(back) is float, (name, back)
            assert back == value and math.copysign(1.0, back) == math.copysign(1.0, value)


@pytest.mark.once  # needs a server built with ICU: Debian's 15 (the embedded 18 has none)
def test_pending_writes_in_code_point_order_whatever_the_collation(dsn: str) -> None:
    # In an en-US database 'Zeta' sorts after 'alpha'; LangGraph (Python) puts it first.
    paths = {"t1": "~__pregel_pull, Zeta", "t2": "~__pregel_pull, alpha",
             "t3": "~__pregel_pull, beta"}
    options = "template template0 locale_provider icu icu_locale 'en-US'"
    with fresh_database(dsn, "actae_icu", options) as icu, \
            ActaeSaver.from_conn_string(icu, max_size=1) as saver:
        config: Any = {"configurable": {"thread_id": "fid-icu", "checkpoint_ns": ""}}
        stored = saver.put(config, empty_checkpoint(), {}, {})
        for task in ("t3", "t2", "t1"):
            saver.put_writes(stored, [("c", task)], task, paths[task])
        got = saver.get_tuple(stored)
    assert got is not None
    assert [task for task, _, _ in got.pending_writes or []] == ["t1", "t2", "t3"]
