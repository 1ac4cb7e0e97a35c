"""A real LangGraph StateGraph whose tool node charges a provider through durable_tool.

The graph: agent (a fake chat model from langchain_core that asks for one charge) ->
tools (ToolNode with the durable charge tool) -> agent (final answer). The provider is a
table in the test database that records one charge per idempotency key and counts every
request, as a payments API with idempotency keys does.

Crash tests run the graph in a child process that SIGKILLs itself at a chosen point, then
resume the thread from the checkpointer in a new child process, and count charges:
* after_provider: the provider confirmed, Actae has not recorded the result yet (the
  ambiguous window). The resumed run reclaims the execution once its lease lapses and calls
  the tool again with the same idempotency key: 2 provider requests, 1 charge.
* after_recorded: the result is recorded, LangGraph has not saved the step's writes yet.
  The resumed run re-runs the tool node and the call replays: 1 request, 1 charge.

Both runs use durability="sync": each step's checkpoint is saved before the next step
starts. With LangGraph's default "async" a kill can also lose the step that asked for the
tool call, and a real model asked again answers with a new tool-call id, which is a new
execution (docs/langgraph.md says so). Run as a script, this file is that child process.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import psycopg.types.json
import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from actae.client import ActaeClient
from actae.langgraph import ActaeSaver, AsyncActaeSaver, current_tool_context, durable_tool

CALL = {"name": "charge", "args": {"order_id": "o-4471", "amount_cents": 4200}, "id": "call_1"}


def _provider(dsn: str, table: str) -> Any:
    @tool
    def charge(order_id: str, amount_cents: int) -> dict[str, Any]:
        """Charge the customer for an order."""
        key = current_tool_context().idempotency_key
        with psycopg.connect(dsn, autocommit=True) as conn:
            row = conn.execute(
                f"insert into {table} (idempotency_key, order_id, amount_cents)"
                " values (%s, %s, %s) on conflict (idempotency_key)"
                " do update set requests = excluded.requests + " + table + ".requests"
                " returning charge_id", (key, order_id, amount_cents)).fetchone()
        assert row is not None
        if os.environ.get("KILL_AT") == "after_provider":
            os.kill(os.getpid(), signal.SIGKILL)
        return {"charge_id": f"ch_{row[0]}", "amount_cents": amount_cents}

    return charge


class _KillingSaver(ActaeSaver):
    """Dies just before LangGraph saves the tool node's writes (KILL_AT=after_recorded)."""

    def put_writes(self, config: Any, writes: Any, task_id: str, task_path: str = "") -> None:
        if os.environ.get("KILL_AT") == "after_recorded" and any(
            isinstance(v, list) and any(isinstance(m, ToolMessage) for m in v)
            for _, v in writes
        ):
            os.kill(os.getpid(), signal.SIGKILL)
        super().put_writes(config, writes, task_id, task_path)


def _graph(
    saver: ActaeSaver | AsyncActaeSaver, dsn: str, table: str, replies: list[AIMessage]
) -> Any:
    model = GenericFakeChatModel(messages=iter(replies))

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode([durable_tool(_provider(dsn, table), saver,
                                                     lease_seconds=1)]))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", tools_condition)
    builder.add_edge("tools", "agent")
    return builder.compile(checkpointer=saver)


def _child(dsn: str, table: str, thread_id: str, mode: str) -> None:
    config = {"configurable": {"thread_id": thread_id}}
    done = AIMessage(content="charged")
    with _KillingSaver.from_conn_string(dsn) as saver:
        if mode == "start":
            graph = _graph(saver, dsn, table, [AIMessage(content="", tool_calls=[CALL]), done])
            graph.invoke({"messages": [HumanMessage(content="charge order o-4471")]}, config,
                         durability="sync")
        else:  # resume: the first model reply is in the checkpoint, only the last is asked
            graph = _graph(saver, dsn, table, [done])
            state = graph.invoke(None, config, durability="sync")
            print([type(m).__name__ + ":" + str(m.content) for m in state["messages"]])


def _run_child(dsn: str, table: str, thread_id: str, mode: str, kill_at: str = "") -> Any:
    env = {**os.environ, "KILL_AT": kill_at,
           "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[3] / "python"),
                                          os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, __file__, dsn, table, thread_id, mode], env=env,
                          capture_output=True, text=True, timeout=120)


def _provider_table(conn: psycopg.Connection, unique: Any) -> str:
    table = unique("provider").replace("-", "_")
    conn.execute(f"create table {table} (idempotency_key text primary key, order_id text,"
                 " amount_cents integer, charge_id serial, requests integer not null default 1)")
    return table


def _counts(conn: psycopg.Connection, table: str) -> tuple[int, int]:
    row = conn.execute(f"select count(*), coalesce(sum(requests), 0) from {table}").fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def _crash_and_resume(dsn: str, conn: psycopg.Connection, unique: Any, kill_at: str) -> Any:
    table, thread_id = _provider_table(conn, unique), unique("lg-thread")
    first = _run_child(dsn, table, thread_id, "start", kill_at)
    assert first.returncode == -signal.SIGKILL, first.stderr
    assert _counts(conn, table)[0] == 1, "the provider confirmed before the kill"
    second = _run_child(dsn, table, thread_id, "resume")
    assert second.returncode == 0, second.stderr
    assert "ToolMessage:" in second.stdout and "AIMessage:charged" in second.stdout
    return table, thread_id, second.stdout


# SIGKILLed graph runs, the same on any server version: in make test's PostgreSQL 18 pass only
# (marker `second`; see the Makefile), as the other SIGKILL sweeps.
@pytest.mark.second
def test_kill_after_provider_confirmed_resumes_with_one_charge(dsn, conn, unique) -> None:
    table, thread_id, out = _crash_and_resume(dsn, conn, unique, "after_provider")
    assert _counts(conn, table) == (1, 2), "two requests with one key, one charge"
    row = conn.execute(
        "select e.status, e.attempt, e.ambiguous from actae.executions as e"
        " join actae.langgraph_threads as t on t.channel_id = e.channel_id"
        " where t.thread_id = %s and t.checkpoint_ns = ''", (thread_id,)).fetchone()
    assert row == ("completed", 2, True)
    assert out.count("ToolMessage:") == 1


@pytest.mark.second
def test_kill_after_result_recorded_replays_the_charge(dsn, conn, unique) -> None:
    table, thread_id, out = _crash_and_resume(dsn, conn, unique, "after_recorded")
    assert _counts(conn, table) == (1, 1), "the resumed tool node replayed the stored result"
    assert out.count("ToolMessage:") == 1
    row = conn.execute(
        "select e.status, e.attempt, e.ambiguous from actae.executions as e"
        " join actae.langgraph_threads as t on t.channel_id = e.channel_id"
        " where t.thread_id = %s and t.checkpoint_ns = ''", (thread_id,)).fetchone()
    assert row == ("completed", 1, False)


def test_async_graph_runs_the_tool_through_the_ledger(dsn, conn, unique) -> None:
    table, thread_id = _provider_table(conn, unique), unique("lg-thread")
    config = {"configurable": {"thread_id": thread_id}}

    async def main() -> Any:
        async with AsyncActaeSaver.from_conn_string(dsn) as saver:
            graph = _graph(saver, dsn, table, [AIMessage(content="", tool_calls=[CALL]),
                                               AIMessage(content="charged")])
            return await graph.ainvoke({"messages": [HumanMessage(content="go")]}, config)

    state = asyncio.run(main())
    assert state["messages"][-1].content == "charged"
    assert _counts(conn, table) == (1, 1)
    row = conn.execute(
        "select e.key_name, e.tool_name, e.status, e.params from actae.executions as e"
        " join actae.langgraph_threads as t on t.channel_id = e.channel_id"
        " where t.thread_id = %s", (thread_id,)).fetchone()
    assert row is not None and row[1:] == ("charge", "completed", CALL["args"])
    assert re.fullmatch(r"langgraph:tools:[0-9a-f-]{36}:call_1", row[0]), row[0]


def test_forked_thread_replays_the_charge_instead_of_repeating_it(dsn, conn, unique) -> None:
    table, thread_id = _provider_table(conn, unique), unique("lg-thread")
    config = {"configurable": {"thread_id": thread_id}}
    with ActaeSaver.from_conn_string(dsn) as saver:
        graph = _graph(saver, dsn, table, [AIMessage(content="", tool_calls=[CALL]),
                                           AIMessage(content="charged")])
        graph.invoke({"messages": [HumanMessage(content="charge it")]}, config)
        assert _counts(conn, table) == (1, 1)
        before_tools = next(s for s in graph.get_state_history(config) if s.next == ("tools",))
        fork_id = unique("lg-fork")
        fork = saver.fork_thread(before_tools.config, fork_id)
        assert fork.outcome == "forked"
        forked = _graph(saver, dsn, table, [AIMessage(content="charged again?")])
        state = forked.invoke(None, {"configurable": {"thread_id": fork_id}})
    assert _counts(conn, table) == (1, 1), "the fork replayed the inherited charge"
    # The channel first, then the claim (on Citus a claim inside a query over a distributed
    # table would run on a worker).
    fork_channel = conn.execute(
        "select channel_id from actae.langgraph_threads"
        " where thread_id = %s and checkpoint_ns = ''", (fork_id,)).fetchone()
    assert fork_channel is not None
    [(key,)] = conn.execute(
        "select e.key_name from actae.executions as e join actae.langgraph_threads as t"
        " on t.channel_id = e.channel_id where t.thread_id = %s", (thread_id,)).fetchall()
    replay = conn.execute(
        "select c.outcome from actae.claim_execution(%s, %s, 'charge', %s) as c",
        (fork_channel[0], key, psycopg.types.json.Jsonb(CALL["args"]))).fetchone()
    assert replay == ("replayed",), "the fork's channel inherits the completed execution"
    original = saver_state_messages(dsn, thread_id)
    tool_messages = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    assert [m.content for m in tool_messages] == [
        m.content for m in original if isinstance(m, ToolMessage)]
    assert state["messages"][-1].content == "charged again?"


def saver_state_messages(dsn: str, thread_id: str) -> list[Any]:
    with ActaeSaver.from_conn_string(dsn) as saver:
        found = saver.get_tuple({"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}})
    assert found is not None
    return list(found.checkpoint["channel_values"]["messages"])


def _tool_graph(saver: ActaeSaver, durable: Any,
                ask: Callable[[str], list[dict[str, Any]]]) -> Any:
    """agent -> tools -> agent: the agent answers a human message with the tool calls
    ask(text) makes, anything else with "done"."""
    def agent(state: MessagesState) -> dict[str, Any]:
        last = state["messages"][-1]
        if isinstance(last, HumanMessage):
            return {"messages": [AIMessage("", tool_calls=ask(str(last.content)))]}
        return {"messages": [AIMessage("done")]}

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode([durable_tool(durable, saver)]))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", tools_condition)
    builder.add_edge("tools", "agent")
    return builder.compile(checkpointer=saver)


def _charging_graph(saver: ActaeSaver, charges: list[tuple[str, int]]) -> Any:
    """"order amount" becomes one charge call, numbered call_0 in every turn (as models
    that number the calls of each response do)."""
    @tool
    def charge(order: str, amount: int) -> str:
        """Charge an order."""
        charges.append((order, amount))
        return f"charge #{len(charges)}: {order} {amount}"

    def ask(text: str) -> list[dict[str, Any]]:
        order, amount = text.split()
        return [{"name": "charge", "args": {"order": order, "amount": int(amount)},
                 "id": "call_0"}]

    return _tool_graph(saver, charge, ask)


def test_a_tool_call_id_used_again_in_a_later_turn_is_a_new_call(dsn, unique) -> None:
    """Keys hold the task id: turn 2's call_0 is a new charge (it replayed turn 1's result
    with the same arguments, and was refused as IdempotencyConflict with others)."""
    charges: list[tuple[str, int]] = []
    config = {"configurable": {"thread_id": unique("lg-reuse")}}
    with ActaeSaver.from_conn_string(dsn) as saver:
        graph = _charging_graph(saver, charges)
        said = [graph.invoke({"messages": [HumanMessage(m)]}, config)["messages"][-2].content
                for m in ("o-1 500", "o-1 500", "o-2 700")]
    assert charges == [("o-1", 500), ("o-1", 500), ("o-2", 700)]
    assert said == ["charge #1: o-1 500", "charge #2: o-1 500", "charge #3: o-2 700"]


def test_time_travel_runs_the_steps_after_the_checkpoint_as_new_calls(dsn, unique) -> None:
    """A run from the checkpoint before the tool node is executed by LangGraph as new
    steps (new task ids), so the tool runs again, as without Actae, and a call edited there
    with update_state (its id kept, as LangGraph documents) runs with its new arguments
    (it was refused as IdempotencyConflict). To re-run from a step without paying for the
    calls again, fork the thread (test_forked_thread_replays_the_charge_instead_of_...)."""
    charges: list[tuple[str, int]] = []
    config = {"configurable": {"thread_id": unique("lg-travel")}}
    with ActaeSaver.from_conn_string(dsn) as saver:
        graph = _charging_graph(saver, charges)
        graph.invoke({"messages": [HumanMessage("o-1 500")]}, config)
        before = next(s for s in graph.get_state_history(config) if s.next == ("tools",))
        again = graph.invoke(None, before.config)["messages"][-2].content
        ai = before.values["messages"][-1]
        edited = {**ai.tool_calls[0], "args": {"order": "o-1", "amount": 300}}
        forked = graph.update_state(before.config, {"messages": [
            AIMessage("", id=ai.id, tool_calls=[edited])]})
        ran = graph.invoke(None, forked)["messages"][-2].content
    assert again == "charge #2: o-1 500"
    assert ran == "charge #3: o-1 300"
    assert charges == [("o-1", 500), ("o-1", 500), ("o-1", 300)]


def test_an_async_only_tool_runs_under_a_blocking_saver(dsn, unique) -> None:
    """`@tool async def` (as MCP adapters' tools are) under ActaeSaver, with graph.ainvoke
    and graph.invoke: the call runs once, on the tool thread's own loop (its sync invoke,
    which such a tool does not have, raised NotImplementedError, recorded as a failure)."""
    seen: list[str] = []

    @tool
    async def lookup(q: str) -> str:
        """Look something up."""
        await asyncio.sleep(0)
        seen.append(current_tool_context().key_name)
        return f"result for {q}"

    def graph(saver: ActaeSaver) -> Any:
        return _tool_graph(saver, lookup, lambda text: [
            {"name": "lookup", "args": {"q": "x"}, "id": "c1"}])

    with ActaeSaver.from_conn_string(dsn) as saver:
        async_config = {"configurable": {"thread_id": unique("lg-async-only")}}
        out = asyncio.run(graph(saver).ainvoke({"messages": [HumanMessage("hi")]},
                                               async_config))
        sync_config = {"configurable": {"thread_id": unique("lg-async-only")}}
        out_sync = graph(saver).invoke({"messages": [HumanMessage("hi")]}, sync_config)
    assert out["messages"][-2].content == out_sync["messages"][-2].content == "result for x"
    assert len(seen) == 2


def test_return_direct_and_artifacts_are_the_tools_own(dsn, unique) -> None:
    """A durable tool keeps the tool's return_direct, tags and metadata, and a tool with
    response_format="content_and_artifact" gives its ToolMessage's artifact and status,
    live and replayed (they were dropped: the artifact came back None, return_direct
    False, so create_react_agent asked the model again)."""
    runs: list[str] = []

    @tool(response_format="content_and_artifact", return_direct=True)
    def search(q: str) -> tuple[str, dict[str, Any]]:
        """Search."""
        runs.append(q)
        return f"found {q}", {"raw": [1, 2, 3]}

    search.tags, search.metadata = ["pay"], {"team": "billing"}

    call = {"type": "tool_call", "name": "search", "args": {"q": "x"}, "id": "s1"}
    config = {"configurable": {"thread_id": unique("lg-artifact"), "checkpoint_ns": "tools:t"}}
    with ActaeSaver.from_conn_string(dsn) as saver:
        durable = durable_tool(search, saver)
        live, replayed = durable.invoke(call, config), durable.invoke(call, config)

        async def main() -> Any:
            async with AsyncActaeSaver.from_conn_string(dsn) as asaver:
                return await durable_tool(search, asaver).ainvoke(call, config)

        async_replayed = asyncio.run(main())
    assert (durable.return_direct, durable.tags, durable.metadata) == (
        True, ["pay"], {"team": "billing"})
    for message in (live, replayed, async_replayed):
        assert isinstance(message, ToolMessage)
        assert (message.content, message.artifact, message.status, message.tool_call_id) == (
            "found x", {"raw": [1, 2, 3]}, "success", "s1")
    assert runs == ["x"]


def test_content_blocks_and_non_ascii_reach_the_model_as_without_actae(dsn, unique) -> None:
    """A tool's output becomes the ToolMessage content the plain tool gives, live and
    replayed: a list of content blocks (a chart: text and an image) stays a list, other
    JSON is text with its non-ASCII characters as they are (it was all JSON text, \\u
    escapes and the image as base64 text)."""
    chart = [{"type": "text", "text": "chart for München"},
             {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"}]

    @tool
    def plot(city: str) -> list[dict[str, str]]:
        """Plot."""
        return chart

    @tool
    def weather(city: str) -> dict[str, Any]:
        """Weather."""
        return {"city": city, "temp": 21.5}

    config = {"configurable": {"thread_id": unique("lg-content")}}
    with ActaeSaver.from_conn_string(dsn) as saver:
        for plain in (plot, weather):
            call = {"type": "tool_call", "name": plain.name, "args": {"city": "München"},
                    "id": f"{plain.name}-1"}
            expected = plain.invoke(call).content
            durable = durable_tool(plain, saver)
            live, replayed = durable.invoke(call, config), durable.invoke(call, config)
            assert live.content == replayed.content == expected
    assert expected == '{"city": "München", "temp": 21.5}'


if __name__ == "__main__":
    _child(*sys.argv[1:5])


def test_either_saver_works_under_either_graph_api(dsn, conn, unique) -> None:
    """ActaeSaver under graph.ainvoke, AsyncActaeSaver under graph.invoke (run from another
    thread than its loop): each charges once, through the ledger."""
    tables = [_provider_table(conn, unique) for _ in range(2)]
    replies = [AIMessage(content="", tool_calls=[CALL]), AIMessage(content="charged")]

    async def main() -> list[Any]:
        with ActaeSaver.from_conn_string(dsn) as saver:
            graph = _graph(saver, dsn, tables[0], list(replies))
            first = await graph.ainvoke({"messages": [HumanMessage(content="go")]},
                                        {"configurable": {"thread_id": unique("lg-thread")}})
        async with AsyncActaeSaver.from_conn_string(dsn) as saver:
            graph = _graph(saver, dsn, tables[1], list(replies))
            second = await asyncio.to_thread(
                graph.invoke, {"messages": [HumanMessage(content="go")]},
                {"configurable": {"thread_id": unique("lg-thread")}})
        return [first, second]

    for state in asyncio.run(main()):
        assert state["messages"][-1].content == "charged"
        assert isinstance(state["messages"][-2], ToolMessage)
    assert [_counts(conn, t) for t in tables] == [(1, 1), (1, 1)]


def test_a_bare_async_client_under_invoke_is_a_clear_type_error(dsn, conn, unique) -> None:
    table = _provider_table(conn, unique)

    async def main() -> None:
        async with ActaeClient(dsn) as client:
            wrapped = durable_tool(_provider(dsn, table), client)
            call = {**CALL, "type": "tool_call"}
            config = {"configurable": {"thread_id": unique("lg-thread")}}
            with pytest.raises(TypeError, match="give it an ActaeSaver or a SyncActaeClient"):
                await asyncio.to_thread(wrapped.invoke, call, config)

    asyncio.run(main())
    assert _counts(conn, table) == (0, 0)
    with pytest.raises(TypeError, match="durable_tool needs an ActaeSaver"):
        durable_tool(_provider(dsn, table), object())  # type: ignore[arg-type]
