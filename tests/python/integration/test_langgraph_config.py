"""How the savers read a LangGraph config, as LangGraph's own savers do: a checkpoint_id of
"" names no checkpoint (the latest one), for get_tuple, list and put's parent. And setup()
from a login that may not migrate (an agent): a no-op on a migrated database, a clear
MigrationError when the saver's functions are not there for it."""

from __future__ import annotations

import asyncio
import operator
import uuid
from collections.abc import Iterator
from typing import Annotated, Any, TypedDict

import psycopg
import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from actae.langgraph import ActaeSaver, AsyncActaeSaver
from actae.migrate import MigrationError


class Log(TypedDict):
    log: Annotated[list[str], operator.add]


def _empty_id_run(saver: BaseCheckpointSaver[Any], thread_id: str) -> list[Any]:
    builder = StateGraph(Log)
    builder.add_node("a", lambda state: {"log": ["a"]})
    builder.add_edge(START, "a")
    builder.add_edge("a", END)
    graph = builder.compile(checkpointer=saver)
    graph.invoke({"log": ["first"]}, {"configurable": {"thread_id": thread_id}})
    config: Any = {"configurable": {"thread_id": thread_id, "checkpoint_ns": "",
                                    "checkpoint_id": ""}}
    found = saver.get_tuple(config)
    return [
        None if found is None else found.checkpoint["channel_values"].get("log"),
        len(list(saver.list(config))),
        len(list(saver.list({"configurable": {"thread_id": thread_id}}, before=config))),
        graph.invoke({"log": ["second"]}, config)["log"],
    ]


def test_an_empty_checkpoint_id_means_the_latest(dsn: str, unique: Any) -> None:
    expected = _empty_id_run(InMemorySaver(), unique("lg-mem"))
    assert expected == [["first", "a"], 3, 3, ["first", "a", "second", "a"]]
    with ActaeSaver.from_conn_string(dsn) as saver:
        assert _empty_id_run(saver, unique("lg-empty")) == expected


@pytest.fixture
def logins(dsn: str) -> Iterator[dict[str, str]]:
    """DSNs of two new logins: "agent", a tenant (granted actae_agent), and "stranger", granted
    nothing of Actae's; dropped afterwards."""
    names = {kind: f"lg_{kind}_{uuid.uuid4().hex[:8]}" for kind in ("agent", "stranger")}
    with psycopg.connect(dsn, autocommit=True) as conn:
        for name in names.values():
            conn.execute(sql.SQL("create role {} login password 'lg-setup'").format(
                sql.Identifier(name)))
            conn.execute(sql.SQL("grant connect on database {} to {}").format(
                sql.Identifier(conn.info.dbname), sql.Identifier(name)))
        conn.execute(sql.SQL("grant actae_agent to {}").format(sql.Identifier(names["agent"])))
        try:
            yield {kind: make_conninfo(**{**conninfo_to_dict(dsn), "user": name,
                                          "password": "lg-setup"})
                   for kind, name in names.items()}
        finally:
            for name in names.values():
                conn.execute("select pg_terminate_backend(pid) from pg_stat_activity"
                             " where usename = %s", (name,))
                conn.execute(sql.SQL("drop owned by {}").format(sql.Identifier(name)))
                conn.execute(sql.SQL("drop role {}").format(sql.Identifier(name)))


def test_setup_as_an_agent_is_a_no_op_on_a_migrated_database(
    logins: dict[str, str], unique: Any
) -> None:
    with ActaeSaver.from_conn_string(logins["agent"]) as saver:
        saver.setup()
        config: Any = {"configurable": {"thread_id": unique("lg-setup"), "checkpoint_ns": ""}}
        assert saver.get_tuple(config) is None, "and the saver works for it"

    async def main() -> None:
        async with AsyncActaeSaver.from_conn_string(logins["agent"]) as saver:
            await saver.setup()

    asyncio.run(main())


def test_setup_without_the_savers_functions_says_what_to_do(logins: dict[str, str]) -> None:
    with (ActaeSaver.from_conn_string(logins["stranger"]) as saver,
          pytest.raises(MigrationError, match="run `actae migrate`")):
        saver.setup()
