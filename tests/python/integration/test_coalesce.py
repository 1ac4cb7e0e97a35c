"""Concurrent run_tool calls under ActaeClient share batches (actae._coalesce): the claims of
one channel started together are one claim_executions, their completions one
complete_executions, and every element keeps the outcome or error its single call gives.
The frameworks' own parallel tool calls (Pydantic AI, OpenAI Agents, LangGraph's ToolNode)
batch the same way. A batch is seen in the rows: every row a transaction wrote carries its
xmin, and actae._now() is the transaction's clock, so rows claimed together share
created_at and rows completed together share their xmin."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import psycopg
import pytest

from actae import ActaeClient, ToolContext, _coalesce, calls
from actae.errors import IdempotencyConflict


def _transactions(conn: psycopg.Connection, channel: str) -> tuple[int, int, int]:
    """(rows, distinct claim transactions, distinct completing transactions)."""
    row = conn.execute(
        "select count(*), count(distinct created_at), count(distinct xmin::text)"
        " from actae.executions where channel_id = %s", (channel,)).fetchone()
    assert row is not None
    return int(row[0]), int(row[1]), int(row[2])


async def _echo(ctx: ToolContext) -> dict[str, Any]:
    return {"key": ctx.key_name, "params": ctx.params}


def test_gathered_run_tools_claim_and_complete_as_one_batch_each(
        dsn: str, conn: psycopg.Connection, unique: Callable[..., str]) -> None:
    channel = unique("co")

    async def main() -> list[Any]:
        async with ActaeClient(dsn) as client:
            return await asyncio.gather(*(
                client.run_tool(_echo, channel_id=channel, key_name=f"k{i}", tool_name="t",
                                params={"i": i}) for i in range(8)))

    results = asyncio.run(main())
    assert results == [{"key": f"k{i}", "params": {"i": i}} for i in range(8)]
    assert _transactions(conn, channel) == (8, 1, 1)


def test_sequential_run_tools_stay_single_calls(
        dsn: str, conn: psycopg.Connection, unique: Callable[..., str]) -> None:
    channel = unique("co-seq")

    async def main() -> None:
        async with ActaeClient(dsn) as client:
            for i in range(3):
                await client.run_tool(_echo, channel_id=channel, key_name=f"k{i}",
                                      tool_name="t", params={"i": i})

    asyncio.run(main())
    assert _transactions(conn, channel) == (3, 3, 3)


def test_a_lone_call_is_sent_without_waiting_for_others_to_join(
        dsn: str, unique: Callable[..., str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a call that another could join waits a loop round for it (leads a batch): a
    claim while other tasks are ready to run, a completion while another plan runs."""
    leads: list[str] = []
    lead = _coalesce.Coalescer._lead

    async def recorded(self: _coalesce.Coalescer, key: tuple[Any, ...],
                       call: calls.Call[Any]) -> Any:
        leads.append("claim" if key[0] == calls.CLAIM else "complete")
        return await lead(self, key, call)

    monkeypatch.setattr(_coalesce.Coalescer, "_lead", recorded)

    async def main(busy: bool) -> None:
        done = asyncio.Event()

        async def spin() -> None:  # another task, ready to run every round
            while not done.is_set():
                await asyncio.sleep(0)

        spinner = asyncio.create_task(spin()) if busy else None
        async with ActaeClient(dsn) as client:
            channel = unique("co-lone")
            for i in range(3):
                await client.run_tool(_echo, channel_id=channel, key_name=f"k{i}",
                                      tool_name="t", params={"i": i})
            done.set()
            await asyncio.gather(*(
                client.run_tool(_echo, channel_id=channel, key_name=f"g{i}", tool_name="t",
                                params={"i": i}) for i in range(2)))
        if spinner is not None:
            await spinner

    asyncio.run(main(busy=False))
    assert leads == ["claim", "complete"], "only the gathered pair waited to batch"
    leads.clear()
    asyncio.run(main(busy=True))
    assert leads == ["claim"] * 3 + ["claim", "complete"], leads


def test_an_element_that_fails_the_batch_gets_its_own_error_and_the_others_their_results(
        dsn: str, conn: psycopg.Connection, unique: Callable[..., str]) -> None:
    channel = unique("co-conflict")
    called: list[str] = []

    async def tool(ctx: ToolContext) -> str:
        called.append(ctx.key_name)
        return ctx.key_name

    async def main() -> list[Any]:
        async with ActaeClient(dsn) as client:
            await client.run_tool(tool, channel_id=channel, key_name="done", tool_name="t",
                                  params={"v": 1})
            called.clear()
            return await asyncio.gather(
                client.run_tool(tool, channel_id=channel, key_name="a", tool_name="t",
                                params={}),
                # same key, other params: AC409, which fails claim_executions as a whole
                client.run_tool(tool, channel_id=channel, key_name="done", tool_name="t",
                                params={"v": 2}),
                client.run_tool(tool, channel_id=channel, key_name="b", tool_name="t",
                                params={}),
                return_exceptions=True)

    a, conflict, b = asyncio.run(main())
    assert (a, b) == ("a", "b")
    assert isinstance(conflict, IdempotencyConflict)
    assert sorted(called) == ["a", "b"]
    rows = conn.execute(
        "select key_name, status, result from actae.executions where channel_id = %s"
        " order by key_name", (channel,)).fetchall()
    assert rows == [("a", "completed", "a"), ("b", "completed", "b"),
                    ("done", "completed", "done")]


def test_replays_and_new_keys_in_one_batch(
        dsn: str, conn: psycopg.Connection, unique: Callable[..., str]) -> None:
    channel = unique("co-replay")
    called: list[str] = []

    async def tool(ctx: ToolContext) -> str:
        called.append(ctx.key_name)
        return f"r-{ctx.key_name}"

    async def main() -> list[Any]:
        async with ActaeClient(dsn) as client:
            await client.run_tool(tool, channel_id=channel, key_name="k0", tool_name="t",
                                  params={})
            return await asyncio.gather(*(
                client.run_tool(tool, channel_id=channel, key_name=f"k{i}", tool_name="t",
                                params={}) for i in range(4)))

    assert asyncio.run(main()) == ["r-k0", "r-k1", "r-k2", "r-k3"]
    assert called == ["k0", "k1", "k2", "k3"]  # k0 once: the batch replayed it
    created = conn.execute(
        "select count(distinct created_at) from actae.executions where channel_id = %s"
        " and key_name <> 'k0'", (channel,)).fetchone()
    assert created == (1,)


def test_each_channel_is_its_own_batch(
        dsn: str, conn: psycopg.Connection, unique: Callable[..., str]) -> None:
    first, second = unique("co-a"), unique("co-b")

    async def main() -> None:
        async with ActaeClient(dsn) as client:
            await asyncio.gather(*(
                client.run_tool(_echo, channel_id=channel, key_name=f"k{i}", tool_name="t",
                                params={}) for i in range(3) for channel in (first, second)))

    asyncio.run(main())
    assert _transactions(conn, first) == (3, 1, 1)
    assert _transactions(conn, second) == (3, 1, 1)
    xmins = conn.execute(
        "select count(distinct xmin::text) from actae.executions where channel_id = any(%s)",
        ([first, second],)).fetchone()
    assert xmins == (2,)


@pytest.mark.parametrize("cancelled", range(4))
def test_a_caller_cancelled_before_the_batch_is_sent_is_left_out(
        dsn: str, conn: psycopg.Connection, unique: Callable[..., str], cancelled: int) -> None:
    # Whichever caller is cancelled, the one leading the batch or one waiting in it, the
    # others' calls are made and its own is not.
    channel = unique("co-cancel")

    async def main() -> bool:
        async with ActaeClient(dsn) as client:
            tasks = [asyncio.create_task(client.run_tool(
                _echo, channel_id=channel, key_name=f"k{i}", tool_name="t", params={}))
                for i in range(4)]
            for _ in range(2):  # every task reaches its claim, none is sent yet
                await asyncio.sleep(0)
            filling = client._coalescer._filling  # pyright: ignore[reportPrivateUsage]
            queued = sum(len(others) + 1 for others in filling.values()) == 4
            tasks[cancelled].cancel()
            # bounded: a batch left unsent would leave the others waiting for ever
            results = await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 30)
            assert isinstance(results[cancelled], asyncio.CancelledError)
            assert [r for r in results if not isinstance(r, BaseException)] == [
                {"key": f"k{i}", "params": {}} for i in range(4) if i != cancelled]
            return queued

    assert asyncio.run(main()), "all four claims were filling one batch when one was cancelled"
    keys = conn.execute("select key_name from actae.executions where channel_id = %s"
                        " order by key_name", (channel,)).fetchall()
    assert keys == [(f"k{i}",) for i in range(4) if i != cancelled]


async def _cancel_in_flight(client: ActaeClient, dsn: str, channel: str, tool: Any,
                            cancelled: int, lease_seconds: int) -> list[Any]:
    """run_tool k0, k1, k2 of the channel gathered; their batch is held in flight by the
    channel's claim guard (held by another connection) while the caller of k<cancelled>
    is cancelled. Each call's result or exception."""
    guard = await psycopg.AsyncConnection.connect(dsn, autocommit=True)
    await guard.execute("select pg_advisory_lock(hashtextextended(%s, 1633907809))", (channel,))
    tasks = [asyncio.create_task(client.run_tool(
        tool, channel_id=channel, key_name=f"k{i}", tool_name="t", params={},
        lease_seconds=lease_seconds)) for i in range(3)]
    await asyncio.sleep(0.3)  # the batch waits on the guard
    tasks[cancelled].cancel()
    await asyncio.sleep(0.2)
    await guard.execute("select pg_advisory_unlock(hashtextextended(%s, 1633907809))", (channel,))
    await guard.close()
    return await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 30)


@pytest.mark.parametrize("cancelled", [0, 2])
def test_a_caller_cancelled_while_its_claim_is_in_flight_leaves_no_orphan_claim(
        dsn: str, conn: psycopg.Connection, unique: Callable[..., str], cancelled: int) -> None:
    # The batch is in flight (held up by the channel's claim guard) when one caller gives
    # up: its claim commits with the others', and nobody holds its token. It is failed
    # (retryable, before any tool ran), so the same call made again reclaims it at once and
    # unambiguously, as after a cancelled single claim, instead of waiting out the lease
    # and then reconciling a call that never ran.
    channel = unique("co-orphan")
    ran: list[tuple[str, bool]] = []

    async def tool(ctx: ToolContext) -> str:
        ran.append((ctx.key_name, ctx.ambiguous))
        return ctx.key_name

    async def main() -> str:
        async with ActaeClient(dsn) as client:
            results = await _cancel_in_flight(client, dsn, channel, tool, cancelled, 300)
            assert isinstance(results[cancelled], asyncio.CancelledError)
            return str(await client.run_tool(tool, channel_id=channel,
                                             key_name=f"k{cancelled}", tool_name="t",
                                             params={}, lease_seconds=300, wait_timeout=2))

    assert asyncio.run(main()) == f"k{cancelled}"
    assert sorted(ran) == [(f"k{i}", False) for i in range(3)]
    attempt = conn.execute("select status, attempt from actae.executions where channel_id = %s"
                           " and key_name = %s", (channel, f"k{cancelled}")).fetchone()
    assert attempt == ("completed", 2)


def test_a_caller_cancelled_as_its_row_arrives_leaves_no_orphan_claim(
        dsn: str, conn: psycopg.Connection, unique: Callable[..., str]) -> None:
    # The cancel is made ready in the same loop round as the batch's answer (a timeout, a
    # TaskGroup sibling failing): the caller's row is set, then CancelledError is raised at
    # its await. The claim it won is released all the same, and the others get their rows
    # first.
    channel = unique("co-late")
    ran: list[str] = []

    async def tool(ctx: ToolContext) -> str:
        ran.append(ctx.key_name)
        return ctx.key_name

    async def main() -> str:
        async with ActaeClient(dsn) as client:
            coalescer = client._coalescer  # pyright: ignore[reportPrivateUsage]
            real = coalescer._execute  # pyright: ignore[reportPrivateUsage]
            tasks: list[asyncio.Task[Any]] = []

            async def execute(call: calls.Call[Any]) -> Any:
                rows = await real(call)
                if call.sql == calls.CLAIM_EXECUTIONS:
                    asyncio.get_running_loop().call_soon(tasks[1].cancel)
                return rows

            coalescer._execute = execute  # pyright: ignore[reportPrivateUsage]
            tasks.extend(asyncio.create_task(client.run_tool(
                tool, channel_id=channel, key_name=f"k{i}", tool_name="t", params={},
                lease_seconds=300)) for i in range(3))
            results = await asyncio.gather(*tasks, return_exceptions=True)
            coalescer._execute = real  # pyright: ignore[reportPrivateUsage]
            assert [r if not isinstance(r, BaseException) else type(r) for r in results] == [
                "k0", asyncio.CancelledError, "k2"]
            await asyncio.sleep(0.2)  # the release runs in a task of its own
            return str(await client.run_tool(tool, channel_id=channel, key_name="k1",
                                             tool_name="t", params={}, lease_seconds=300,
                                             wait_timeout=2))

    assert asyncio.run(main()) == "k1"
    assert sorted(ran) == ["k0", "k1", "k2"]


def test_an_ambiguous_reclaim_cancelled_in_flight_stays_ambiguous(
        dsn: str, conn: psycopg.Connection, unique: Callable[..., str]) -> None:
    # k0's first attempt ended with no recorded outcome (its lease lapsed): the tool may have
    # run. Its reclaim, in a batch in flight when its caller gives up, is not failed (that
    # would tell the next claim the outcome is known): it lapses, and the next claim is
    # ambiguous again and reconciles.
    channel = unique("co-ambiguous")
    seen: list[tuple[str, bool]] = []

    async def tool(ctx: ToolContext) -> str:
        seen.append((ctx.key_name, ctx.ambiguous))
        return ctx.key_name

    async def main() -> None:
        async with ActaeClient(dsn) as client:
            await client.claim_execution(channel, "k0", "t", {}, lease_seconds=1)
            await asyncio.sleep(1.1)  # the first attempt's lease lapses, no outcome
            await _cancel_in_flight(client, dsn, channel, tool, 0, 1)
            row = await client.get_execution(channel_id=channel, key_name="k0")
            assert (row.status, row.attempt) == ("claimed", 2), row
            await asyncio.sleep(1.1)
            assert await client.run_tool(tool, channel_id=channel, key_name="k0",
                                         tool_name="t", params={}) == "k0"

    asyncio.run(main())
    assert sorted(seen) == [("k0", True), ("k1", False), ("k2", False)]


# --- the frameworks' parallel tool calls --------------------------------------------------------


async def _refused_batch(client: ActaeClient, channel: str, held: str, conflict: int
                         ) -> list[asyncio.Task[Any]]:
    """run_tool k0, k1, k2 of the channel gathered, k<conflict> with other params than its
    stored call, so their claim batch is refused (AC409) and each is sent on its own. The
    call `held` ("batch", or the single claim of "k0") is held up 0.3 s in flight, and
    k0's caller is cancelled as it starts. The three callers' tasks."""
    send = client._coalescer._execute  # pyright: ignore[reportPrivateUsage]
    started = asyncio.Event()

    async def holding(call: calls.Call[Any]) -> Any:
        if (held == "batch" and call.sql == calls.CLAIM_EXECUTIONS) or (
                call.sql == calls.CLAIM and call.params["key_name"] == held):
            started.set()
            await asyncio.sleep(0.3)
        return await send(call)

    await client.run_tool(_echo, channel_id=channel, key_name=f"k{conflict}", tool_name="t",
                          params={"n": 1})
    client._coalescer._execute = holding  # pyright: ignore[reportPrivateUsage]
    tasks = [asyncio.create_task(client.run_tool(
        _echo, channel_id=channel, key_name=f"k{i}", tool_name="t", params={"n": 2}))
        for i in range(3)]
    await asyncio.wait_for(started.wait(), 10)
    tasks[0].cancel()
    return tasks


def test_a_caller_cancelled_while_a_refused_batch_is_in_flight_is_not_sent_alone(
        dsn: str, conn: psycopg.Connection, unique: Callable[..., str]) -> None:
    """k0's caller gives up while the batch is in flight; the batch is refused (k1's
    conflict), and of the calls sent one by one afterwards k0's is not: no row is left for
    a call nobody waits for (it was claimed, and then failed, for a new key)."""
    channel = unique("co-refused")

    async def main() -> list[Any]:
        async with ActaeClient(dsn) as client:
            tasks = await _refused_batch(client, channel, "batch", conflict=1)
            return await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 30)

    results = asyncio.run(main())
    assert isinstance(results[0], asyncio.CancelledError)
    assert isinstance(results[1], IdempotencyConflict)
    assert results[2] == {"key": "k2", "params": {"n": 2}}
    keys = conn.execute("select key_name from actae.executions where channel_id = %s"
                        " order by key_name", (channel,)).fetchall()
    assert keys == [("k1",), ("k2",)]


def test_a_caller_cancelled_while_its_own_refused_claim_is_in_flight_holds_up_nobody(
        dsn: str, unique: Callable[..., str]) -> None:
    """The batch is refused for k0's conflict; k0's own claim, sent alone, is in flight
    when its caller gives up, and is refused again: k1 and k2 are still sent and get their
    results (handing the refusal to the cancelled caller raised, and the others waited for
    ever)."""
    channel = unique("co-refused")

    async def main() -> list[Any]:
        async with ActaeClient(dsn) as client:
            tasks = await _refused_batch(client, channel, "k0", conflict=0)
            done, pending = await asyncio.wait(tasks, timeout=10)
            for task in pending:
                task.cancel()
            assert not pending, "callers left waiting"
            return ["cancelled" if t.cancelled() else t.exception() or t.result()
                    for t in tasks]

    assert asyncio.run(main()) == ["cancelled", {"key": "k1", "params": {"n": 2}},
                                   {"key": "k2", "params": {"n": 2}}]


def test_pydantic_ai_parallel_tool_calls_are_one_batch(
        dsn: str, conn: psycopg.Connection, unique: Callable[..., str]) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.messages import (
        ModelMessage,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
    )
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from actae.pydantic_ai import ActaeDurability

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if not any(isinstance(p, ToolReturnPart) for m in messages for p in m.parts):
            return ModelResponse(parts=[
                ToolCallPart("add", {"a": i, "b": 1}, tool_call_id=f"c{i}") for i in range(4)])
        return ModelResponse(parts=[TextPart("done")])

    run_id = unique("co-pai")

    async def main() -> str:
        async with ActaeClient(dsn, max_size=2) as client:
            agent = Agent(FunctionModel(respond), capabilities=[ActaeDurability(client)])

            @agent.tool_plain
            async def add(a: int, b: int) -> int:
                return a + b

            return (await agent.run("add", run_id=run_id)).output

    assert asyncio.run(main()) == "done"
    rows = conn.execute(
        "select count(*), count(distinct created_at), count(distinct xmin::text),"
        " array_agg(result order by key_name) from actae.executions"
        " where channel_id = %s and tool_name = 'add'", (run_id,)).fetchone()
    assert rows == (4, 1, 1, [1, 2, 3, 4])


def test_openai_agents_parallel_tool_calls_are_one_batch(
        dsn: str, conn: psycopg.Connection, unique: Callable[..., str]) -> None:
    from agents import Agent, ModelResponse, Usage, function_tool, set_tracing_disabled
    from agents.models.interface import Model
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    from actae.openai_agents import ActaeRun

    set_tracing_disabled(True)

    class Parallel(Model):
        async def get_response(self, system_instructions: str | None, input: Any,
                               *args: Any, **kwargs: Any) -> ModelResponse:
            items = input if isinstance(input, list) else []
            if any(isinstance(i, dict) and i.get("type") == "function_call_output"
                   for i in items):
                output: list[Any] = [ResponseOutputMessage(
                    id="m", type="message", role="assistant", status="completed",
                    content=[ResponseOutputText(type="output_text", text="done",
                                                annotations=[])])]
            else:
                output = [ResponseFunctionToolCall(
                    type="function_call", id=f"fc_{i}", call_id=f"c{i}", name="double",
                    arguments=json.dumps({"x": i}), status="completed") for i in range(4)]
            return ModelResponse(output=output, response_id=None,
                                 usage=Usage(requests=1, input_tokens=1, output_tokens=1,
                                             total_tokens=2))

        async def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError
            yield  # pragma: no cover

    @function_tool
    async def double(x: int) -> int:
        """Twice x."""
        return 2 * x

    run_id = unique("co-oai")

    async def main() -> str:
        async with ActaeClient(dsn, max_size=2) as client:
            agent = Agent(name="calc", model=Parallel(), tools=[double])
            result = await ActaeRun(client, run_id).run(agent, "double")
            return str(result.final_output)

    assert asyncio.run(main()) == "done"
    rows = conn.execute(
        "select count(*), count(distinct created_at), count(distinct xmin::text)"
        " from actae.executions where channel_id = %s and tool_name = 'double'",
        (run_id,)).fetchone()
    assert rows == (4, 1, 1)


def test_langgraph_tool_node_parallel_calls_are_one_batch(
        dsn: str, conn: psycopg.Connection, unique: Callable[..., str]) -> None:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage, HumanMessage
    from langchain_core.tools import tool
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition

    from actae.langgraph import AsyncActaeSaver, durable_tool

    @tool
    async def square(x: int) -> int:
        """x squared."""
        return x * x

    thread_id = unique("co-lg")
    replies = iter([AIMessage(content="", tool_calls=[
        {"name": "square", "args": {"x": i}, "id": f"call_{i}"} for i in range(3)]),
        AIMessage(content="done")])
    model = GenericFakeChatModel(messages=replies)

    async def main() -> Any:
        async with AsyncActaeSaver.from_conn_string(dsn) as saver:
            builder = StateGraph(MessagesState)
            builder.add_node("agent", lambda state: {"messages": [model.invoke(state["messages"])]})
            builder.add_node("tools", ToolNode([durable_tool(square, saver)]))
            builder.add_edge(START, "agent")
            builder.add_conditional_edges("agent", tools_condition)
            builder.add_edge("tools", "agent")
            graph = builder.compile(checkpointer=saver)
            return await graph.ainvoke({"messages": [HumanMessage(content="go")]},
                                       {"configurable": {"thread_id": thread_id}})

    out = asyncio.run(main())
    assert [m.content for m in out["messages"][2:5]] == ["0", "1", "4"]
    assert out["messages"][-1].content == "done"
    rows = conn.execute(
        "select count(*), count(distinct e.created_at), count(distinct e.xmin::text)"
        " from actae.executions as e join actae.langgraph_threads as t"
        " on t.channel_id = e.channel_id where t.thread_id = %s", (thread_id,)).fetchone()
    assert rows == (3, 1, 1)
