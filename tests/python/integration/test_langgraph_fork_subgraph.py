"""fork_thread of a thread whose subgraph is interrupted: the fork takes the subgraph's
namespace along, so resuming the fork continues the subgraph where it stopped instead of
restarting it (which re-asks the model, gets a new tool-call id and charges again)."""

from __future__ import annotations

import uuid
from typing import Annotated, Any, TypedDict

import psycopg
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode
from langgraph.types import Command, interrupt

from actae.langgraph import ActaeSaver, durable_tool


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


def _graph(saver: ActaeSaver, charges: list[str]) -> Any:
    @tool
    def charge(order_id: str) -> str:
        """Charge an order."""
        charges.append(order_id)
        return f"charged {order_id}"

    def model(state: State) -> dict[str, Any]:
        # As a real model: every call asks with a fresh tool-call id.
        call = {"name": "charge", "id": "call_" + uuid.uuid4().hex[:8],
                "args": {"order_id": "o-1"}}
        return {"messages": [AIMessage(content="", tool_calls=[call])]}

    def approve(state: State) -> dict[str, Any]:
        return {"messages": [AIMessage(content=f"approved={interrupt('ship it?')}")]}

    sub = StateGraph(State)
    sub.add_node("model", model)
    sub.add_node("tools", ToolNode([durable_tool(charge, saver)]))
    sub.add_node("approve", approve)
    sub.add_edge(START, "model")
    sub.add_edge("model", "tools")
    sub.add_edge("tools", "approve")
    outer = StateGraph(State)
    outer.add_node("agent", sub.compile())
    outer.add_edge(START, "agent")
    outer.add_edge("agent", END)
    return outer.compile(checkpointer=saver)


def _namespaces(conn: psycopg.Connection, thread_id: str) -> list[str]:
    rows = conn.execute("select checkpoint_ns from actae.langgraph_threads"
                        " where thread_id = %s order by checkpoint_ns", (thread_id,)).fetchall()
    return [ns for (ns,) in rows]


def test_fork_of_an_interrupted_subgraph_resumes_it(dsn: str, conn: psycopg.Connection,
                                                    unique: Any) -> None:
    charges: list[str] = []
    thread_id, fork_id = unique("lg-fs"), unique("lg-fs-fork")
    with ActaeSaver.from_conn_string(dsn) as saver:
        graph = _graph(saver, charges)
        config: Any = {"configurable": {"thread_id": thread_id}}
        graph.invoke({"messages": [HumanMessage(content="buy")]}, config, durability="sync")
        assert charges == ["o-1"]
        head = graph.get_state(config).config
        saver.fork_thread(head, fork_id)
        assert _namespaces(conn, fork_id) == _namespaces(conn, thread_id)
        fork_config: Any = {"configurable": {"thread_id": fork_id}}
        state = graph.get_state(fork_config, subgraphs=True)
        assert [(t.name, t.state.next if t.state else None) for t in state.tasks] == [
            ("agent", ("approve",))], "the fork's subgraph waits for approval"
        out = graph.invoke(Command(resume=True), fork_config, durability="sync")
    assert charges == ["o-1"], "resuming the fork did not charge again"
    assert out["messages"][-1].content == "approved=True"
