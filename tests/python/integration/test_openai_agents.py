"""actae.openai_agents in-process against a real database, with a fake model implementing the
Agents SDK ``Model`` interface (no network, tracing off): replay of recorded turns and tools,
divergence, handoffs, tool failures. SIGKILL, resume and fork are tested in
test_pydantic_ai_and_openai_agents_crash.py.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from agents import (
    Agent,
    ModelResponse,
    RunState,
    Usage,
    function_tool,
    handoff,
    set_tracing_disabled,
)
from agents.models.interface import Model
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseCreatedEvent,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseUsage,
)

from actae import ActaeClient, InvalidInput
from actae.openai_agents import ActaeRun, RecordedModel, ReplayDiverged, current_tool

set_tracing_disabled(True)

Step = Callable[[list[Any]], Any]


def tool_call(name: str, args: dict[str, Any], call_id: str) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(type="function_call", id=f"fc_{call_id}", call_id=call_id,
                                    name=name, arguments=json.dumps(args), status="completed")


def message(text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id="msg_1", type="message", role="assistant", status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])])


class FakeModel(Model):
    """Answers with ``script(input_items)``; counts its calls and the tokens it charged."""

    def __init__(self, script: Step) -> None:
        self.script = script
        self.calls = 0

    async def get_response(self, system_instructions: str | None, input: Any,
                           *args: Any, **kwargs: Any) -> ModelResponse:
        self.calls += 1
        items = input if isinstance(input, list) else [{"role": "user", "content": input}]
        return ModelResponse(output=[self.script(items)], response_id=f"resp_{self.calls}",
                             usage=Usage(requests=1, input_tokens=100, output_tokens=7,
                                         total_tokens=107))

    async def stream_response(self, system_instructions: str | None, input: Any,
                              *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        items = input if isinstance(input, list) else [{"role": "user", "content": input}]
        response = Response.model_construct(
            id=f"resp_{self.calls}", object="response", created_at=0, model="fake",
            parallel_tool_calls=False, tool_choice="auto", tools=[],
            output=[self.script(items)], usage=ResponseUsage(
                input_tokens=100, output_tokens=7, total_tokens=107,
                input_tokens_details=Usage().input_tokens_details,
                output_tokens_details=Usage().output_tokens_details))
        yield ResponseCreatedEvent(type="response.created", sequence_number=0, response=response)
        yield ResponseCompletedEvent(type="response.completed", sequence_number=1,
                                     response=response)


def outputs(items: list[Any]) -> list[Any]:
    return [i["output"] for i in items if isinstance(i, dict)
            and i.get("type") == "function_call_output"]


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_second_run_replays_turns_and_tools(dsn: str, unique: Callable[..., str]) -> None:
    seen: list[Any] = []

    @function_tool
    def add(a: int, b: int) -> int:
        tool = current_tool()
        assert tool is not None
        seen.append((tool.key_name, tool.idempotency_key, tool.attempt))
        return a + b

    counter = iter(range(100))
    model = FakeModel(lambda items: message(f"sum {outputs(items)[-1]}") if outputs(items)
                      else tool_call("add", {"a": 2, "b": 3}, f"call_{next(counter)}"))
    agent = Agent(name="adder", model=model, tools=[add])

    async def scenario() -> tuple[Any, Any, list[Any], list[Any]]:
        async with ActaeClient(dsn, max_size=2) as client:
            run_id = unique("oa-replay")
            first = await ActaeRun(client, run_id).run(agent, "2+3?")
            second = await ActaeRun(client, run_id).run(agent, "2+3?")
            events = [(e.operation_id, e.payload["usage"]["total_tokens"])
                      async for e in client.iter_events(run_id)]
            rows = await client.list_executions(run_id)
            return first.final_output, second.final_output, events, rows

    first, second, events, rows = run(scenario())
    assert first == second == "sum 5"
    assert model.calls == 2  # both turns of the second run replayed
    assert len(seen) == 1 and seen[0][0] == "add:call_0" and seen[0][2] == 1
    assert events == [("model:1", 107), ("model:2", 107)]
    assert [(r.tool_name, r.params, r.result) for r in rows] == [("add", {"a": 2, "b": 3}, 5)]
    assert agent.model is model and isinstance(agent.tools[0].on_invoke_tool, object)
    assert not isinstance(agent.model, RecordedModel)  # the caller's agent is not modified


def test_other_input_on_resume_raises(dsn: str, unique: Callable[..., str]) -> None:
    model = FakeModel(lambda items: message("hello"))
    agent = Agent(name="greeter", model=model)

    async def scenario() -> None:
        async with ActaeClient(dsn, max_size=2) as client:
            run_id = unique("oa-diverge")
            assert (await ActaeRun(client, run_id).run(agent, "hi")).final_output == "hello"
            with pytest.raises(ReplayDiverged, match="turn 1"):
                await ActaeRun(client, run_id).run(agent, "something else")

    run(scenario())
    assert model.calls == 1


@pytest.mark.parametrize("as_object", [False, True], ids=["agent", "handoff()"])
def test_handoff_target_is_durable_too(dsn: str, unique: Callable[..., str],
                                       as_object: bool) -> None:
    # A target listed as the agent itself, or through a handoff(...) object.
    refunds: list[str] = []

    @function_tool
    def refund(order_id: str) -> str:
        refunds.append(order_id)
        return f"refunded {order_id}"

    specialist_model = FakeModel(lambda items: message("done") if outputs(items)[1:]
                                 else tool_call("refund", {"order_id": "9"}, "call_r"))
    specialist = Agent(name="refunds", model=specialist_model, tools=[refund])
    triage_model = FakeModel(lambda items: tool_call("transfer_to_refunds", {}, "call_h"))
    triage = Agent(name="triage", model=triage_model,
                   handoffs=[handoff(specialist) if as_object else specialist])

    async def scenario() -> list[str]:
        async with ActaeClient(dsn, max_size=2) as client:
            run_id = unique("oa-handoff")
            first = await ActaeRun(client, run_id).run(triage, "refund order 9")
            second = await ActaeRun(client, run_id).run(triage, "refund order 9")
            assert first.final_output == second.final_output == "done"
            return [e.operation_id async for e in client.iter_events(run_id)]

    operations = run(scenario())
    assert operations == ["model:1", "model:2", "model:3"]  # triage, specialist x2
    assert triage_model.calls == 1 and specialist_model.calls == 2
    assert refunds == ["9"]


def test_tool_failures(dsn: str, unique: Callable[..., str]) -> None:
    attempts: list[str] = []

    def failing(name: str) -> Any:
        def fn(order_id: str) -> str:
            attempts.append(name)
            if len([a for a in attempts if a == name]) == 1:
                raise RuntimeError("provider unavailable")
            return "ok"
        fn.__name__ = name
        return fn

    reported = function_tool(failing("reported"))  # the SDK turns the error into a message
    raised = function_tool(failing("raised"), failure_error_function=None)

    def script(items: list[Any]) -> Any:
        done = outputs(items)
        if not done:
            return tool_call("reported", {"order_id": "1"}, "call_a")
        if len(done) == 1:
            return tool_call("raised", {"order_id": "1"}, "call_b")
        return message(f"{done[0]} / {done[1]}")

    agent = Agent(name="failing", model=FakeModel(script), tools=[reported, raised])

    async def scenario() -> tuple[Any, list[Any]]:
        async with ActaeClient(dsn, max_size=2) as client:
            run_id = unique("oa-fail")
            with pytest.raises(Exception, match="provider unavailable"):
                await ActaeRun(client, run_id).run(agent, "go")
            failed = await client.get_execution(channel_id=run_id, key_name="raised:call_b")
            assert failed.status == "failed" and failed.retryable is True
            result = await ActaeRun(client, run_id).run(agent, "go")  # the resume retries it
            rows = await client.list_executions(run_id)
            return result.final_output, sorted((r.tool_name, r.status, r.attempt) for r in rows)

    final, rows = run(scenario())
    # "reported": the SDK's error message was the tool's result, recorded and replayed as such
    assert final.startswith("An error occurred") and final.endswith(" / ok")
    assert attempts == ["reported", "raised", "raised"]
    assert rows == [("raised", "completed", 2), ("reported", "completed", 1)]


def test_streamed_runs_are_recorded_and_replayed(dsn: str, unique: Callable[..., str]) -> None:
    runs: list[str] = []

    @function_tool
    def lookup(order_id: str) -> str:
        runs.append(order_id)
        return f"order {order_id}: delivered"

    model = FakeModel(lambda items: message(outputs(items)[-1]) if outputs(items)
                      else tool_call("lookup", {"order_id": "7"}, "call_s"))
    agent = Agent(name="streamer", model=model, tools=[lookup])

    async def scenario() -> tuple[list[Any], list[Any]]:
        async with ActaeClient(dsn, max_size=2) as client:
            run_id = unique("oa-stream")
            finals, kinds = [], []
            for _ in range(2):
                result = ActaeRun(client, run_id).run_streamed(agent, "where is order 7?")
                kinds.append([e.type async for e in result.stream_events()])
                finals.append(result.final_output)
            events = [(e.operation_id, e.payload["usage"]["total_tokens"])
                      async for e in client.iter_events(run_id)]
            assert events == [("model:1", 107), ("model:2", 107)]
            return finals, kinds

    finals, kinds = run(scenario())
    assert finals == ["order 7: delivered", "order 7: delivered"]
    assert model.calls == 2  # the second, streamed run replayed both turns
    assert runs == ["7"]
    assert "raw_response_event" in kinds[1] and "run_item_stream_event" in kinds[1]


def test_arguments_that_are_not_json_go_back_to_the_model(
    dsn: str, unique: Callable[..., str]
) -> None:
    # As without Actae: the SDK answers the model with a tool error (the tool does not run),
    # instead of the run failing with the JSON decoder's error.
    ran: list[int] = []

    @function_tool
    def add(a: int, b: int) -> int:
        ran.append(a + b)
        return a + b

    def script(items: list[Any]) -> Any:
        if outputs(items):
            return message(f"got: {outputs(items)[-1]}")
        return ResponseFunctionToolCall(type="function_call", id="fc_1", call_id="call_1",
                                        name="add", arguments='{"a": 2, "b": ',
                                        status="completed")

    agent = Agent(name="adder", model=FakeModel(script), tools=[add])

    async def scenario() -> Any:
        async with ActaeClient(dsn, max_size=2) as client:
            return (await ActaeRun(client, unique("oa-badjson")).run(agent, "2+3?")).final_output

    answer = run(scenario())
    assert answer.startswith("got: ") and "error" in answer.lower()
    assert ran == []


def test_a_model_call_the_sdk_retries_keeps_its_turn_number(
        dsn: str, unique: Callable[..., str]) -> None:
    """The SDK retries a failed model call (ModelSettings.retry): the turn is counted once
    its response is recorded, so the run is recorded as model:1, model:2 and a second run
    replays both turns and runs the tool no second time (a failed attempt used to take a
    number: model:2, model:3, and the replay asked the model again, got a new call id and
    charged twice)."""
    import httpx
    import openai
    from agents import ModelSettings
    from agents.retry import ModelRetrySettings, retry_policies

    charges: list[str] = []

    @function_tool(failure_error_function=None)
    def charge(order_id: str) -> str:
        charges.append(order_id)
        return f"charged {order_id}"

    counter = iter(range(100))
    scripted = FakeModel(lambda items: message("done") if outputs(items)
                         else tool_call("charge", {"order_id": "4471"}, f"call_{next(counter)}"))
    failures = [1]

    class Flaky(Model):
        async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
            if failures:
                failures.pop()
                raise openai.APIConnectionError(request=httpx.Request("POST", "https://x"))
            return await scripted.get_response(*args, **kwargs)

        async def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError
            yield  # pragma: no cover

    agent = Agent(name="a", model=Flaky(), tools=[charge], model_settings=ModelSettings(
        retry=ModelRetrySettings(max_retries=2, policy=retry_policies.network_error())))

    async def scenario() -> tuple[list[str], Any]:
        async with ActaeClient(dsn, max_size=2) as client:
            run_id = unique("oa-retry")
            await ActaeRun(client, run_id).run(agent, "charge 4471")
            ops = [e.operation_id async for e in client.iter_events(run_id)]
            second = await ActaeRun(client, run_id).run(agent, "charge 4471")
            return ops, second.final_output

    ops, final = run(scenario())
    assert ops == ["model:1", "model:2"]
    assert final == "done" and charges == ["4471"] and scripted.calls == 2


def test_a_run_resumed_from_its_state_after_an_approval_counts_on(
        dsn: str, unique: Callable[..., str]) -> None:
    """The SDK's human-in-the-loop flow: a needs_approval tool interrupts the run, the caller
    approves on result.to_state() and runs again with the state. The continuation's model
    call is turn 2 (the state holds turn 1's response), not a new turn 1 (ReplayDiverged,
    the run could never finish); running the state again replays it."""
    charges: list[str] = []

    @function_tool(failure_error_function=None, needs_approval=True)
    def charge(order_id: str) -> str:
        charges.append(order_id)
        return f"charged {order_id}"

    model = FakeModel(lambda items: message("done") if outputs(items)
                      else tool_call("charge", {"order_id": "4471"}, "call_1"))
    agent = Agent(name="a", model=model, tools=[charge])

    async def scenario() -> tuple[Any, Any, list[str]]:
        async with ActaeClient(dsn, max_size=2) as client:
            run_id = unique("oa-hitl")
            durable = ActaeRun(client, run_id)
            first = await durable.run(agent, "charge 4471")
            assert [i.name for i in first.interruptions] == ["charge"]
            state = first.to_state()
            state.approve(first.interruptions[0])
            saved = state.to_string()  # what an application keeps while it waits
            resumed = await durable.run(agent, state)
            ops = [e.operation_id async for e in client.iter_events(run_id)]
            # After a crash, say: the state is restored with the durable copy of the agent
            # (the SDK continues with the state's agent, not the one passed to run).
            replayer = ActaeRun(client, run_id)
            again = await RunState.from_string(replayer.agent(agent), saved)
            replayed = await replayer.run(agent, again)
            return resumed.final_output, replayed.final_output, ops

    resumed, replayed, ops = run(scenario())
    assert resumed == replayed == "done"
    assert ops == ["model:1", "model:2"] and charges == ["4471"] and model.calls == 2


def test_agents_run_as_tools_under_the_run_configs_model_are_no_turns_of_the_run(
        dsn: str, unique: Callable[..., str]) -> None:
    """Agents run as tools of one response (Agent.as_tool) get the run config's model, so
    their calls reach the RecordedModel too: they are made inside a durable tool, whose
    result is recorded, so they are not turns of the run. Only the run's own two turns are
    recorded, and a resume replays all of it without a model call (when the inner calls
    took numbers, a resume, which replays the tools without running the inner agents,
    asked turn 2 with the parent's input and raised ReplayDiverged)."""
    from agents import RunConfig

    calls: list[str | None] = []

    async def respond(system_instructions: str | None, items: list[Any]) -> Any:
        calls.append(system_instructions)
        if outputs(items):
            return message("parent done " + "|".join(outputs(items)))
        if system_instructions and "sub" in system_instructions:
            await asyncio.sleep(0.2)
            return message(f"sub says {items[-1].get('content')}")
        return [tool_call("ask_a", {"input": "A"}, "call_a"),
                tool_call("ask_b", {"input": "B"}, "call_b")]

    class Shared(Model):
        async def get_response(self, system_instructions: str | None, input: Any,
                               *args: Any, **kwargs: Any) -> ModelResponse:
            items = input if isinstance(input, list) else [{"role": "user", "content": input}]
            out = await respond(system_instructions, items)
            return ModelResponse(output=out if isinstance(out, list) else [out],
                                 response_id=None, usage=Usage(requests=1))

        async def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError
            yield  # pragma: no cover

    shared = Shared()
    sub_a = Agent(name="sa", instructions="sub a", model=shared)
    sub_b = Agent(name="sb", instructions="sub b", model=shared)
    parent = Agent(name="p", instructions="parent", model=shared,
                   tools=[sub_a.as_tool("ask_a", "a"), sub_b.as_tool("ask_b", "b")])

    async def scenario() -> tuple[list[Any], list[str], int]:
        async with ActaeClient(dsn, max_size=4) as client:
            run_id = unique("oa-astool")
            finals = []
            for _ in range(2):  # a run, then its resume
                result = await ActaeRun(client, run_id).run(
                    parent, "go", run_config=RunConfig(model=shared))
                finals.append(result.final_output)
            ops = sorted([e.operation_id async for e in client.iter_events(run_id)])
            return finals, ops, len(await client.list_executions(run_id))

    finals, ops, tools = run(scenario())
    assert finals == ["parent done sub says A|sub says B"] * 2
    assert ops == ["model:1", "model:2"]
    assert tools == 2
    assert len(calls) == 4  # the first run's four calls; the resume made none


def test_the_run_configs_model_needs_no_model_of_the_agents_own(
        dsn: str, unique: Callable[..., str], monkeypatch: pytest.MonkeyPatch) -> None:
    """RunConfig(model=...) is the model every agent runs with, as in the SDK: an agent
    with no model of its own works without the default provider's credentials (its model
    was resolved through them, and failed without OPENAI_API_KEY), and the run replays."""
    from agents import RunConfig

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    model = FakeModel(lambda items: message("hi"))
    agent = Agent(name="no-model")

    async def scenario() -> tuple[list[Any], list[str | None]]:
        async with ActaeClient(dsn, max_size=2) as client:
            run_id = unique("oa-config-model")
            finals = [(await ActaeRun(client, run_id).run(
                agent, "q", run_config=RunConfig(model=model))).final_output for _ in range(2)]
            return finals, [e.operation_id async for e in client.iter_events(run_id)]

    finals, ops = run(scenario())
    assert finals == ["hi", "hi"]
    assert ops == ["model:1"]
    assert model.calls == 1  # the second run replayed the turn


def test_agents_made_on_the_fly_each_get_their_own_copy(
        dsn: str, unique: Callable[..., str]) -> None:
    """Durable copies are known by the agent itself, not only by its id: an agent made for
    one call and freed must not hand its copy to the next agent given its address (CPython
    reuses it at once, for some of these pairs: the next agent ran with the first one's
    instructions and tools)."""
    model = FakeModel(lambda items: message("ok"))

    def desk(topic: str) -> Agent[Any]:
        return Agent(name=f"{topic}-desk", instructions=f"you handle {topic}", model=model)

    async def scenario() -> tuple[list[str], Any]:
        async with ActaeClient(dsn, max_size=2) as client:
            durable = ActaeRun(client, unique("oa-on-the-fly"))
            wrong = []
            for i in range(200):
                durable.agent(desk(f"a{i}"))  # its copy is not kept by the caller
                copy = durable.agent(desk(f"b{i}"))
                if copy.instructions != f"you handle b{i}":
                    wrong.append(f"b{i} got {copy.instructions!r}")
            result = await durable.run(desk("claims"), "hello")
            return wrong, result.last_agent.instructions

    wrong, last = run(scenario())
    assert wrong == []
    assert last == "you handle claims"


def test_a_session_is_refused_before_the_model_is_asked(
        dsn: str, unique: Callable[..., str]) -> None:
    """The SDK adds a session's items to the input, those of the run's own first attempt
    too, so its resume could never replay: refused, naming the argument."""
    from agents import SQLiteSession

    model = FakeModel(lambda items: message("hi"))
    agent = Agent(name="chat", model=model)

    async def scenario() -> None:
        async with ActaeClient(dsn, max_size=2) as client:
            with pytest.raises(InvalidInput, match="session=") as raised:
                await ActaeRun(client, unique("oa-session")).run(
                    agent, "hi", session=SQLiteSession("s1"))
            assert raised.value.detail == {"argument": "session"}

    run(scenario())
    assert model.calls == 0


@pytest.mark.parametrize("run_id", ["", None, 42])
def test_a_run_id_that_is_no_channel_id_is_refused_when_the_run_is_made(
        dsn: str, run_id: Any) -> None:
    client = ActaeClient(dsn)  # never opened: refused before any call
    with pytest.raises(InvalidInput, match="^run_id must be a non-empty string") as raised:
        ActaeRun(client, run_id)
    assert raised.value.detail == {"argument": "run_id"}


def test_a_run_started_inside_a_durable_tool_records_its_own_turns(
        dsn: str, unique: Callable[..., str]) -> None:
    """An ActaeRun a tool starts (a sub-agent under a run id of its own) is not a nested
    call of the outer run: its turns are recorded in its channel. When the outer tool runs
    again (here: it failed after the inner run, and the outer run is resumed), the inner run
    replays: its model is not asked again and its email is sent once (passed through, the
    inner model's fresh call ids sent it twice)."""
    emails: list[str] = []
    fresh = iter(range(100))

    @function_tool
    def send_email(to: str) -> str:
        emails.append(to)
        return "sent"

    inner_model = FakeModel(lambda items: message("inner done") if outputs(items)
                            else tool_call("send_email", {"to": "bob"}, f"call_{next(fresh)}"))
    inner = Agent(name="inner", model=inner_model, tools=[send_email])
    failing = [True]

    async def scenario() -> list[str | None]:
        async with ActaeClient(dsn, max_size=4) as client:
            inner_id, outer_id = unique("oa-inner"), unique("oa-outer")

            @function_tool(failure_error_function=None)
            async def delegate(task: str) -> str:
                done = await ActaeRun(client, inner_id).run(inner, task)
                if failing[0]:
                    failing[0] = False
                    raise RuntimeError("failed after the inner run (transient)")
                return str(done.final_output)

            outer = Agent(name="outer", tools=[delegate], model=FakeModel(
                lambda items: message("outer done") if outputs(items)
                else tool_call("delegate", {"task": "mail bob"}, "call_d")))
            with pytest.raises(Exception, match="transient"):
                await ActaeRun(client, outer_id).run(outer, "go")
            await ActaeRun(client, outer_id).run(outer, "go")
            return [e.operation_id async for e in client.iter_events(inner_id)]

    assert run(scenario()) == ["model:1", "model:2"]
    assert emails == ["bob"]
    assert inner_model.calls == 2
