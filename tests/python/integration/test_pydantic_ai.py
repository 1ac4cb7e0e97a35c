"""actae.pydantic_ai in-process against a real database, with Pydantic AI's own TestModel and
FunctionModel (no network): replay of recorded turns and tools, divergence, ModelRetry, per-tool
settings. The SIGKILL/resume/fork tests are in test_pydantic_ai_and_openai_agents_crash.py."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import pytest
from pydantic_ai import Agent, ModelRetry, RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.exceptions import UserError
from pydantic_ai.messages import (
    BinaryContent,
    ModelMessage,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturn,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.tools import ToolDefinition

from actae import ActaeClient
from actae.pydantic_ai import ActaeDurability, ReplayDiverged, _digest, current_tool  # pyright: ignore[reportPrivateUsage]

# --- in-process: the framework's own test models ----------------------------------------------

def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_test_model_run_replays_fully_on_second_run(dsn: str, unique: Callable[..., str]) -> None:
    calls: list[str] = []

    async def scenario() -> tuple[str, str, Any]:
        async with ActaeClient(dsn, max_size=2) as client:
            model = TestModel()
            agent = Agent(model, capabilities=[ActaeDurability(client)])

            @agent.tool_plain
            def weather(city: str) -> str:
                tool = current_tool()
                assert tool is not None and tool.idempotency_key.startswith("actae-")
                calls.append(city)
                return f"sunny in {city}"

            run_id = unique("pai-test-model")
            first = await agent.run("weather?", run_id=run_id)
            assert model.last_model_request_parameters is not None  # the model was asked
            model.last_model_request_parameters = None
            second = await agent.run("weather?", run_id=run_id)
            return first.output, second.output, model.last_model_request_parameters

    first, second, asked_again = run(scenario())
    assert first == second
    assert asked_again is None  # TestModel was not called by the second run
    assert len(calls) == 1  # the tool ran once; the second run replayed it


def test_function_model_is_not_called_for_recorded_turns(
    dsn: str, unique: Callable[..., str]
) -> None:
    turns: list[int] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        turns.append(len(messages))
        if not any(isinstance(p, ToolReturnPart) for m in messages for p in m.parts):
            return ModelResponse(parts=[ToolCallPart("add", {"a": 2, "b": 3})])
        return ModelResponse(parts=[TextPart("five")])

    async def scenario() -> None:
        async with ActaeClient(dsn, max_size=2) as client:
            agent = Agent(FunctionModel(respond), capabilities=[ActaeDurability(client)])

            @agent.tool_plain
            def add(a: int, b: int) -> int:
                return a + b

            run_id = unique("pai-function-model")
            assert (await agent.run("2+3?", run_id=run_id)).output == "five"
            assert len(turns) == 2
            assert (await agent.run("2+3?", run_id=run_id)).output == "five"
            assert len(turns) == 2  # both turns replayed from the ledger
            with pytest.raises(ReplayDiverged, match="turn 1"):
                await agent.run("something else", run_id=run_id)

    run(scenario())


def test_model_retry_is_recorded_and_replayed(dsn: str, unique: Callable[..., str]) -> None:
    tool_calls: list[int] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        parts = [p for m in messages for p in m.parts]
        retries = sum(isinstance(p, RetryPromptPart) or getattr(p, "outcome", None) == "retried"
                      for p in parts)
        if sum(isinstance(p, ToolReturnPart) for p in parts) > retries:
            return ModelResponse(parts=[TextPart("charged")])
        amount = 0 if retries == 0 else 4200
        return ModelResponse(parts=[ToolCallPart("charge", {"amount_cents": amount})])

    async def scenario() -> tuple[Any, Any]:
        async with ActaeClient(dsn, max_size=2) as client:
            agent = Agent(FunctionModel(respond), capabilities=[ActaeDurability(client)])

            @agent.tool_plain
            def charge(amount_cents: int) -> str:
                tool_calls.append(amount_cents)
                if amount_cents <= 0:
                    raise ModelRetry("amount_cents must be positive")
                return f"charged {amount_cents}"

            run_id = unique("pai-retry")
            first = await agent.run("charge", run_id=run_id)
            second = await agent.run("charge", run_id=run_id)
            rows = await client.list_executions(run_id)
            return (first.output, second.output), sorted(
                (r.params["amount_cents"], r.status, json.dumps(r.result)) for r in rows)

    outputs, rows = run(scenario())
    assert outputs == ("charged", "charged")
    assert tool_calls == [0, 4200]  # each ran once; the retry was replayed, not re-run
    assert rows == [(0, "completed", json.dumps({"__actae_model_retry__":
                                                  "amount_cents must be positive"})),
                    (4200, "completed", json.dumps("charged 4200"))]


def test_non_durable_tool_and_dedup_fields(dsn: str, unique: Callable[..., str]) -> None:
    calls: list[str] = []

    async def scenario() -> list[Any]:
        async with ActaeClient(dsn, max_size=2) as client:
            agent = Agent(TestModel(), capabilities=[ActaeDurability(
                client, dedup_fields={"pay": ["order_id"]}, lease_seconds=30)])

            @agent.tool_plain(metadata={"actae": {"durable": False}})
            def clock() -> str:
                calls.append("clock")
                return "noon"

            @agent.tool_plain
            def pay(order_id: str, note: str) -> str:
                calls.append("pay")
                return "paid"

            run_id = unique("pai-settings")
            await agent.run("go", run_id=run_id)
            await agent.run("go", run_id=run_id)
            return await client.list_executions(run_id)

    rows = run(scenario())
    assert calls.count("clock") == 2  # not durable: runs every time
    assert calls.count("pay") == 1
    assert [(r.tool_name, r.dedup_fields, r.lease_seconds) for r in rows] == [
        ("pay", ["order_id"], 30)]


def test_streamed_turns_are_recorded_and_replayed(dsn: str, unique: Callable[..., str]) -> None:
    streams: list[int] = []
    tool_runs: list[str] = []

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> Any:
        streams.append(1)
        if not any(isinstance(p, ToolReturnPart) for m in messages for p in m.parts):
            yield {0: DeltaToolCall(name="weather", json_args='{"city": "Paris"}',
                                    tool_call_id=f"call_{len(streams)}")}
        else:
            yield "It is "
            yield "sunny."

    async def scenario() -> list[str]:
        async with ActaeClient(dsn, max_size=2) as client:
            agent = Agent(FunctionModel(stream_function=stream),
                          capabilities=[ActaeDurability(client)])

            @agent.tool_plain
            def weather(city: str) -> str:
                tool_runs.append(city)
                return "sunny"

            run_id = unique("pai-stream")
            texts = []
            for _ in range(2):
                async with agent.run_stream("weather?", run_id=run_id) as result:
                    texts.append(await result.get_output())
            return texts

    assert run(scenario()) == ["It is sunny.", "It is sunny."]
    assert len(streams) == 2  # the second run replayed both streamed turns
    assert tool_runs == ["Paris"]


def test_changed_instructions_on_resume_raise(dsn: str, unique: Callable[..., str]) -> None:
    # Instructions are part of what the model is asked, as a system prompt is: a run resumed
    # under other instructions must not replay answers given under the first ones.
    calls: list[str | None] = []

    def respond(messages: list[Any], info: AgentInfo) -> ModelResponse:
        calls.append(messages[-1].instructions)
        return ModelResponse(parts=[TextPart(f"under {messages[-1].instructions}")])

    async def scenario() -> tuple[str, str]:
        async with ActaeClient(dsn, max_size=2) as client:
            run_id = unique("pai-instr")

            def agent(instructions: str) -> Agent[None, str]:
                return Agent(FunctionModel(respond), instructions=instructions,
                             capabilities=[ActaeDurability(client)])

            first = (await agent("Today is Monday").run("what day?", run_id=run_id)).output
            again = (await agent("Today is Monday").run("what day?", run_id=run_id)).output
            with pytest.raises(ReplayDiverged, match="turn 1"):
                await agent("Today is Tuesday").run("what day?", run_id=run_id)
            return first, again

    first, again = run(scenario())
    assert first == again == "under Today is Monday"
    assert calls == ["Today is Monday"], "the same instructions replay; others raise"


def test_a_tool_return_reaches_the_model_as_without_actae(
    dsn: str, unique: Callable[..., str]
) -> None:
    # ToolReturn: the value goes back as the tool's return, its content (text and an image
    # here) as a user prompt; recorded and replayed, not flattened to a dict.
    image = BinaryContent(data=b"\x89PNG\x00", media_type="image/png")
    ran: list[str] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if not any(isinstance(p, ToolReturnPart) for m in messages for p in m.parts):
            return ModelResponse(parts=[ToolCallPart("look", {"q": "x"}, tool_call_id="c1")])
        return ModelResponse(parts=[TextPart("done")])

    def agent(capabilities: list[Any]) -> Agent[None, str]:
        made = Agent(FunctionModel(respond), capabilities=capabilities)

        @made.tool_plain
        def look(q: str) -> ToolReturn:
            ran.append(q)
            return ToolReturn(return_value="ok", content=["see this", image])

        return made

    def shown(messages: list[ModelMessage]) -> tuple[Any, list[Any]]:
        """The tool's return as the model got it, and the user prompts after the first."""
        parts = [p for m in messages for p in m.parts]
        returned = [p.content for p in parts if isinstance(p, ToolReturnPart)]
        prompts = [[(c.media_type, c.data) if isinstance(c, BinaryContent) else c
                    for c in p.content] for p in parts
                   if isinstance(p, UserPromptPart) and not isinstance(p.content, str)]
        return returned, prompts

    async def scenario() -> list[tuple[Any, list[Any]]]:
        out = [shown((await agent([]).run("go")).all_messages())]
        async with ActaeClient(dsn, max_size=2) as client:
            run_id = unique("pai-toolreturn")
            for _ in range(2):  # live, then replayed
                result = await agent([ActaeDurability(client)]).run("go", run_id=run_id)
                out.append(shown(result.all_messages()))
        return out

    plain, live, replayed = run(scenario())
    assert plain == (["ok"], [["see this", ("image/png", b"\x89PNG\x00")]])
    assert live == replayed == plain
    assert ran == ["x", "x"], "once without Actae, once durable (then replayed)"


def test_changed_tool_arguments_results_or_tools_on_resume_raise(
        dsn: str, unique: Callable[..., str]) -> None:
    """The fingerprint of a turn covers the tool calls' arguments, the tool results and the
    tools offered: a run resumed with a history whose balance or account differs, or with
    another tool set, raises ReplayDiverged instead of replaying the answer given for the
    first (it compared tool names and ids only). A turn recorded before (payload without
    "digest") is still compared by the fingerprint it was recorded with."""
    from pydantic_ai.messages import ModelRequest

    def history(balance: int, account: str) -> list[ModelMessage]:
        return [ModelRequest(parts=[UserPromptPart("what is my balance?")]),
                ModelResponse(parts=[ToolCallPart("get_balance", {"account": account},
                                                  tool_call_id="c1")]),
                ModelRequest(parts=[ToolReturnPart("get_balance", f"balance: {balance}",
                                                   tool_call_id="c1")]),
                ModelResponse(parts=[TextPart("ok")])]

    calls: list[str] = []

    def respond(messages: list[Any], info: AgentInfo) -> ModelResponse:
        seen = [p.content for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]
        calls.append(seen[-1])
        return ModelResponse(parts=[TextPart(f"based on {seen[-1]}")])

    def agent(client: ActaeClient, tool_name: str) -> Agent[None, str]:
        made = Agent(FunctionModel(respond), capabilities=[ActaeDurability(client)])

        def get_balance(account: str) -> str:
            return "unused"

        made.tool_plain(name=tool_name)(get_balance)
        return made

    async def scenario() -> str:
        async with ActaeClient(dsn, max_size=2) as client:
            run_id = unique("pai-digest")
            first = await agent(client, "get_balance").run(
                "can I pay 50?", run_id=run_id, message_history=history(100, "acct-1"))
            again = await agent(client, "get_balance").run(
                "can I pay 50?", run_id=run_id, message_history=history(100, "acct-1"))
            assert again.output == first.output
            for balance, account, tool in ((0, "acct-1", "get_balance"),
                                           (100, "acct-2", "get_balance"),
                                           (100, "acct-1", "lookup_balance")):
                with pytest.raises(ReplayDiverged, match="turn 1"):
                    await agent(client, tool).run("can I pay 50?", run_id=run_id,
                                                  message_history=history(balance, account))
            # A turn recorded before the fingerprint covered them: compared as it was.
            legacy = unique("pai-digest-v1")
            await agent(client, "get_balance").run(
                "can I pay 50?", run_id=legacy, message_history=history(100, "acct-1"))
            async with client.pool.connection() as conn:
                await conn.execute(
                    "update actae.events set payload = (payload - 'digest') || jsonb_build_object("
                    "'request_sha256', %s::text) where channel_id = %s",
                    (_digest(history(100, "acct-1") + [ModelRequest(
                        parts=[UserPromptPart("can I pay 50?")])], version=1), legacy))
            replayed = await agent(client, "lookup_balance").run(
                "can I pay 50?", run_id=legacy, message_history=history(0, "acct-9"))
            return replayed.output

    legacy_output = run(scenario())
    assert calls == ["balance: 100", "balance: 100"]  # asked once per run id, nothing more
    assert legacy_output == "based on balance: 100"


@pytest.mark.parametrize("number", [-0.0, 2e16, 1.5e300, 0.1])
def test_a_resume_agrees_with_the_live_fingerprint(
        dsn: str, unique: Callable[..., str], number: float) -> None:
    """The fingerprint leaves out what legitimately changes on a resume: the results of a
    tool that is not durable (it runs again: the docs' clock), and a number's notation
    (jsonb gives 1e16 and -0.0 back as integers): a second run replays both turns."""
    ticks = iter(range(100))
    calls: list[int] = []

    def respond(messages: list[Any], info: AgentInfo) -> ModelResponse:
        calls.append(1)
        returns = [p for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]
        if not returns:
            return ModelResponse(parts=[
                ToolCallPart("clock", {"x": number}, tool_call_id="c1")])
        return ModelResponse(parts=[TextPart("done")])

    async def scenario() -> list[str]:
        async with ActaeClient(dsn, max_size=2) as client:
            run_id = unique("pai-live")
            outs = []
            for _ in range(2):
                agent = Agent(FunctionModel(respond), capabilities=[ActaeDurability(client)])

                @agent.tool_plain(metadata={"actae": {"durable": False}})
                def clock(x: float) -> str:
                    return f"tick {next(ticks)}"

                outs.append((await agent.run("what time?", run_id=run_id)).output)
            return outs

    assert run(scenario()) == ["done", "done"]
    assert len(calls) == 2  # the second run replayed both turns


class OrderNotFound(ModelRetry):
    """A tool's own kind of ModelRetry."""


@dataclass
class PendingCheck(AbstractCapability[Any]):
    """Another capability that reads a tool's result and asks the model to retry."""

    async def after_tool_execute(self, ctx: RunContext[Any], *, call: ToolCallPart,
                                 tool_def: ToolDefinition, args: Any, result: Any) -> Any:
        if isinstance(result, dict) and cast(dict[str, Any], result).get("status") == "pending":
            raise ModelRetry("the charge is pending; tell the user to check back later")
        return result


@pytest.mark.parametrize("where", ["subclass", "hook"])
def test_a_model_retry_of_a_subclass_or_of_a_hook_is_the_tools_outcome(
    dsn: str, unique: Callable[..., str], where: str
) -> None:
    """A ModelRetry raised as a subclass by the tool, or by another capability's
    after_tool_execute once the tool has run: recorded as the tool's outcome, so a second
    run replays it and the side-effecting tool is not run again (it was recorded as a
    retryable failure and run a second time, told nothing had happened)."""
    bodies: list[tuple[int, bool]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        parts = [p for m in messages for p in m.parts]
        if any(isinstance(p, RetryPromptPart) or getattr(p, "outcome", None) == "retried"
               for p in parts):
            return ModelResponse(parts=[TextPart("told the user to check back")])
        return ModelResponse(parts=[ToolCallPart("charge", {"cents": 500}, tool_call_id="c1")])

    async def scenario() -> tuple[list[str], list[tuple[str, str]]]:
        async with ActaeClient(dsn, max_size=2) as client:
            capabilities: list[Any] = [ActaeDurability(client)]
            if where == "hook":
                capabilities.append(PendingCheck())
            agent = Agent(FunctionModel(respond), capabilities=capabilities)

            @agent.tool_plain
            def charge(cents: int) -> dict[str, str]:
                tool = current_tool()
                assert tool is not None
                bodies.append((tool.attempt, tool.ambiguous))
                if where == "subclass":
                    raise OrderNotFound("the charge is pending; tell the user to check back")
                return {"status": "pending"}

            run_id = unique(f"pai-retry-{where}")
            outs = [(await agent.run("charge me", run_id=run_id)).output for _ in range(2)]
            rows = await client.list_executions(run_id)
            return outs, [(r.status, next(iter(r.result or {}))) for r in rows]

    outs, rows = run(scenario())
    assert outs == ["told the user to check back"] * 2
    assert bodies == [(1, False)]  # once: the second run replayed the recorded retry
    assert rows == [("completed", "__actae_model_retry__")]


def test_a_run_without_run_id_is_refused_before_the_model_is_asked(
    dsn: str, unique: Callable[..., str]
) -> None:
    """Without run_id= the run would be recorded under a channel of a generated id, which no
    later run can name: it is refused before the model is called or anything recorded."""
    asked: list[int] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        asked.append(1)
        return ModelResponse(parts=[TextPart("hi")])

    async def scenario() -> None:
        async with ActaeClient(dsn, max_size=2) as client:
            agent = Agent(FunctionModel(respond), capabilities=[ActaeDurability(client)])
            with pytest.raises(UserError, match="needs a run_id"):
                await agent.run("hello")

    run(scenario())
    assert asked == []
