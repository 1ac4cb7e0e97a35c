"""Durable OpenAI Agents SDK runs: function tools through run_tool, model turns recorded.

    from actae.openai_agents import ActaeRun

    result = await ActaeRun(client, "refund-4471").run(agent, "refund order 4471")

The SDK's own extension points are used, nothing is patched:

* ``agents.models.interface.Model``: each agent's model (or ``RunConfig.model``, which every
  agent then runs with) is wrapped in :class:`RecordedModel`. The run's model calls are
  numbered 1, 2, ... in the order the runner makes them (calls made inside a durable tool,
  by an agent run as a tool, are not the run's: its recorded result replays them); call N
  is recorded as the event ``openai_agents.model_response`` with ``operation_id =
  "model:N"`` in the run's channel (its ``output`` items, ``usage`` and ``response_id``).
  When that event exists, ``get_response`` returns the recorded ``ModelResponse`` and the
  wrapped model is not called.
* ``agents.tool.FunctionTool.on_invoke_tool``: every function tool is copied with an
  ``on_invoke_tool`` that runs the original through ``client.run_tool`` in the run's channel,
  ``key_name = "<tool_name>:<call_id>"``. A replayed model turn carries the same call ids, so
  a resumed run replays completed tools and reclaims (``ambiguous``) the one whose worker died.
  Inside the tool, :func:`current_tool` returns the Actae ``ToolContext`` (idempotency key,
  fence, attempt, ambiguous).

The agent graph (handoff targets included) is cloned with ``Agent.clone``; the caller's agents
are not modified. Resume = ``ActaeRun(client, same_run_id).run(agent, same_input)``. A fork of
the channel at the cursor of turn N, run under the fork's channel id, replays turns 1..N and
their tools.

Note the SDK's ``function_tool`` catches a tool's exception and returns an error message to the
model by default (``failure_error_function``): that message is then the tool's recorded result.
Pass ``failure_error_function=None`` to let the exception reach Actae (recorded as a failure,
retried by the next claim unless it is ``actae.PermanentError``). ``ActaeRun.run_streamed`` is
the streamed twin: a live turn streams as usual and is recorded from its ``response.completed``
event; a replayed turn arrives as that one event.
"""

from __future__ import annotations

import contextvars
import copy
import dataclasses
import hashlib
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, cast

from pydantic import TypeAdapter
from pydantic_core import to_jsonable_python

from actae import calls
from actae._extras import needs
from actae._replay import current_tool, recorded_turns, running
from actae.client import ActaeClient
from actae.context import ToolContext
from actae.errors import InvalidInput

with needs("openai-agents", "actae.openai_agents"):
    from agents import (
        Agent,
        FunctionTool,
        Handoff,
        ModelResponse,
        RunConfig,
        Runner,
        RunState,
        Usage,
    )
    from agents.items import TResponseOutputItem
    from agents.models.interface import Model, ModelTracing
    from agents.tool_context import ToolContext as SdkToolContext
    from openai.types.responses import (
        Response,
        ResponseCompletedEvent,
        ResponseOutputItemDoneEvent,
        ResponseUsage,
    )

__all__ = ["MODEL_EVENT", "ActaeRun", "RecordedModel", "ReplayDiverged", "current_tool"]

#: event_type of a recorded model turn.
MODEL_EVENT = "openai_agents.model_response"

_OUTPUT = TypeAdapter(list[TResponseOutputItem])
_USAGE = TypeAdapter(Usage)


#: the ActaeRun whose durable tool is running in this task (RecordedModel._nested)
_TOOL_OF: contextvars.ContextVar[ActaeRun | None] = contextvars.ContextVar(
    "actae_openai_agents_tool_of", default=None)


class ReplayDiverged(RuntimeError):
    """A recorded model turn was asked for with different input: the run was resumed with
    another prompt or agent. Use a new run id (or a fork) instead."""


def _without_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        items = cast(dict[Any, Any], value).items()
        return {k: _without_nulls(v) for k, v in items if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in cast(list[Any], value)]
    return value


def _digest(system_instructions: str | None, input: Any) -> str:
    """A fingerprint of what the model is asked (absent and null fields are the same)."""
    plain = _without_nulls(to_jsonable_python(input))
    text = json.dumps([system_instructions, plain], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class ActaeRun:
    """One durable agent run: its channel (``run_id``), its model-turn counter and its
    recorded turns. Each ``run``/``run_streamed`` starts counting turns from 1, so calling it
    again replays the run; one given a ``RunState`` (the SDK's resume after an approval)
    counts on from the model responses the state holds. A model call that fails, and the SDK
    retries, keeps its number.
    Do not run two at once on one ActaeRun."""

    def __init__(
        self, client: ActaeClient, run_id: str, *,
        dedup_fields: Mapping[str, Sequence[str]] | None = None, lease_seconds: int = 60,
    ) -> None:
        # Refused here, not at the first tool call, after a model turn was paid for.
        if not isinstance(cast(object, run_id), str) or not run_id:
            raise InvalidInput(f"run_id must be a non-empty string, got {run_id!r}",
                               {"argument": "run_id"})
        self.client = client
        self.run_id = run_id
        self.dedup_fields = calls.tools_field_names(dedup_fields)
        self.lease_seconds = calls.check_lease_seconds(lease_seconds)
        self.turn = 0
        self._recorded: dict[str, Any] | None = None
        #: id(agent) -> (agent, its durable copy): the agent is kept, so its id cannot be
        #: reused by another agent while the copy is known
        self._agents: dict[int, tuple[Agent[Any], Agent[Any]]] = {}

    async def run(self, agent: Agent[Any], input: Any, *, run_config: RunConfig | None = None,
                  **kwargs: Any) -> Any:
        """``Runner.run`` of the durable copy of ``agent``."""
        self._restart(input, kwargs)
        return await Runner.run(self.agent(agent, run_config), input,
                                run_config=self.run_config(run_config), **kwargs)

    def run_streamed(self, agent: Agent[Any], input: Any, *,
                     run_config: RunConfig | None = None, **kwargs: Any) -> Any:
        """``Runner.run_streamed`` of the durable copy of ``agent`` (consume its events as
        usual; replayed turns arrive as one ``response.completed`` event each)."""
        self._restart(input, kwargs)
        return Runner.run_streamed(self.agent(agent, run_config), input,
                                   run_config=self.run_config(run_config), **kwargs)

    def _restart(self, input: Any, kwargs: Mapping[str, Any]) -> None:
        """Count turns from 1 again (or on from the responses of a RunState being resumed)
        and re-read the ledger (a run, or the same run again); copy the agents afresh."""
        if kwargs.get("session") is not None:
            # The SDK puts a session's items before the input, and the items of the run
            # being resumed are among them: its first turn would never match its record.
            raise InvalidInput(
                "ActaeRun does not take session=: a resumed run would be asked with the"
                " session's items of its own earlier attempt added, and replay nothing;"
                " pass the conversation so far as the input instead",
                {"argument": "session"})
        self._agents.clear()
        # A RunState keeps the responses so far on the state it serialises; its continuation
        # asks the model for the turn after them.
        responses: list[Any] = (getattr(cast(object, input), "_model_responses", None) or []
                                if isinstance(input, RunState) else [])
        self.turn = len(responses)
        self._recorded = None

    def run_config(self, run_config: RunConfig | None = None) -> RunConfig:
        """The run config with its ``model`` (when set) recorded too."""
        config = run_config or RunConfig()
        model = config.model
        if isinstance(model, str):
            model = config.model_provider.get_model(model)
        if isinstance(model, Model) and not isinstance(model, RecordedModel):
            config = dataclasses.replace(config, model=RecordedModel(model, self))
        return config

    def agent(self, agent: Agent[Any], run_config: RunConfig | None = None) -> Agent[Any]:
        """A copy of ``agent`` (and of every agent it hands off to) whose model turns are
        recorded and whose function tools run through run_tool."""
        known = self._agents.get(id(agent))
        if known is not None and known[0] is agent:
            return known[1]
        config = run_config or RunConfig()
        tools = [self.tool(t) for t in agent.tools]
        if config.model is not None:
            # The run config's model is the one every agent runs with (run_config() records
            # it): the agent's own is never asked, so it is not resolved (a name would need
            # the default provider's credentials) nor wrapped.
            clone = agent.clone(tools=tools)
        else:
            model = agent.model
            if model is None or isinstance(model, str):
                model = config.model_provider.get_model(model)
            clone = agent.clone(model=RecordedModel(model, self), tools=tools)
        self._agents[id(agent)] = (agent, clone)
        clone.handoffs = [
            self.agent(h, config) if isinstance(h, Agent) else self.handoff(h, config)
            for h in agent.handoffs
        ]
        return clone

    def handoff(self, handoff: Handoff[Any, Any], run_config: RunConfig | None = None,
                ) -> Handoff[Any, Any]:
        """A copy of a ``handoff(...)`` object whose target agent is made durable too, when
        the runner invokes it (``agent``)."""
        invoke = handoff.on_invoke_handoff
        run = self

        async def on_invoke_handoff(ctx: Any, raw: str) -> Agent[Any]:
            return run.agent(await invoke(ctx, raw), run_config)

        durable = copy.copy(handoff)  # every field, the ones the constructor does not take too
        durable.on_invoke_handoff = on_invoke_handoff
        return durable

    def tool(self, tool: Any) -> Any:
        """A copy of a FunctionTool whose calls run through run_tool (other tools as they are)."""
        if not isinstance(tool, FunctionTool):
            return tool
        invoke = tool.on_invoke_tool
        run = self

        async def on_invoke_tool(ctx: SdkToolContext[Any], raw: str) -> Any:
            async def body(actx: ToolContext) -> Any:
                token = _TOOL_OF.set(run)
                try:
                    with running(actx):
                        return to_jsonable_python(await invoke(ctx, raw))
                finally:
                    _TOOL_OF.reset(token)

            try:
                decoded: Any = json.loads(raw) if raw else {}
            except ValueError:
                # Arguments that are not JSON: the SDK's own invoker answers the model with a
                # tool error (the tool does not run), so there is nothing to make durable.
                return await invoke(ctx, raw)
            params: dict[str, Any] = (  # a JSON object's keys are strings
                cast(dict[str, Any], decoded) if isinstance(decoded, dict) else {"args": decoded})
            return await run.client.run_tool(
                body, channel_id=run.run_id, key_name=f"{tool.name}:{ctx.tool_call_id}",
                tool_name=tool.name, params=params,
                dedup_fields=run.dedup_fields.get(tool.name), lease_seconds=run.lease_seconds,
            )

        return dataclasses.replace(tool, on_invoke_tool=on_invoke_tool)

    async def recorded_turn(self, operation_id: str) -> Any:
        """The recorded payload of a model turn, or None."""
        if self._recorded is None:
            self._recorded = await recorded_turns(self.client, self.run_id, MODEL_EVENT)
        return self._recorded.get(operation_id)


class RecordedModel(Model):
    """A Model that records each response of the run as an event and replays it on resume,
    streamed or not."""

    def __init__(self, wrapped: Model, run: ActaeRun) -> None:
        self.wrapped = wrapped
        self.run = run

    def _nested(self) -> bool:
        """A model call made inside a durable tool of this run (an agent run as a tool,
        which gets the run config's model): not a turn of the run. The tool's result is
        recorded, so a resume replays it without running the inner agent, whose calls would
        otherwise take (and shift) the numbers of the run's own turns. Another ActaeRun
        started inside a tool (its own run id) records its turns as any run does."""
        return _TOOL_OF.get() is self.run

    async def _recorded(self, system_instructions: str | None, input: Any
                        ) -> tuple[int, str, Any]:
        """(turn, input fingerprint, recorded payload or None) of the next turn. The number
        is taken before anything is awaited (two model calls at once, e.g. agents run as
        tools of one response, get two numbers); a call that fails gives it back
        (_give_back) when no later call took one since, so the SDK's retry reuses it."""
        run = self.run
        run.turn += 1
        turn = run.turn
        digest = _digest(system_instructions, input)
        recorded = await run.recorded_turn(f"model:{turn}")
        if recorded is not None and recorded.get("input_sha256") != digest:
            raise ReplayDiverged(
                f"run {run.run_id!r} model turn {turn} was recorded for other input;"
                " resume with the same input, or use a new run id"
            )
        return turn, digest, recorded

    def _give_back(self, turn: int) -> None:
        """A model call of this turn failed before its response was recorded."""
        if self.run.turn == turn:
            self.run.turn = turn - 1

    async def _record(self, turn: int, digest: str, output: Any, usage: Usage,
                      response_id: str | None) -> None:
        payload = {
            "turn": turn, "input_sha256": digest,
            "output": _OUTPUT.dump_python(output, mode="json", exclude_unset=True),
            "usage": _USAGE.dump_python(usage, mode="json"), "response_id": response_id,
        }
        await self.run.client.record_event(self.run.run_id, MODEL_EVENT, payload,
                                           f"model:{turn}")

    async def get_response(
        self, system_instructions: str | None, input: Any, model_settings: Any, tools: Any,
        output_schema: Any, handoffs: Any, tracing: ModelTracing, *,
        previous_response_id: str | None, conversation_id: str | None, prompt: Any,
    ) -> ModelResponse:
        if self._nested():
            return await self.wrapped.get_response(
                system_instructions, input, model_settings, tools, output_schema, handoffs,
                tracing, previous_response_id=previous_response_id,
                conversation_id=conversation_id, prompt=prompt,
            )
        turn, digest, recorded = await self._recorded(system_instructions, input)
        if recorded is not None:
            return ModelResponse(
                output=_OUTPUT.validate_python(recorded["output"]),
                usage=_USAGE.validate_python(recorded["usage"]),
                response_id=recorded.get("response_id"),
            )
        try:
            response = await self.wrapped.get_response(
                system_instructions, input, model_settings, tools, output_schema, handoffs,
                tracing, previous_response_id=previous_response_id,
                conversation_id=conversation_id, prompt=prompt,
            )
        except BaseException:
            self._give_back(turn)  # the SDK may retry it: the same number
            raise
        await self._record(turn, digest, response.output, response.usage, response.response_id)
        return response

    async def stream_response(  # type: ignore[override]  # an async generator, as the SDK's are
        self, system_instructions: str | None, input: Any, model_settings: Any, tools: Any,
        output_schema: Any, handoffs: Any, tracing: ModelTracing, *,
        previous_response_id: str | None, conversation_id: str | None, prompt: Any,
    ) -> AsyncIterator[Any]:
        """Live: the wrapped model's events, then the turn is recorded from its
        ``response.completed`` event. Replayed: one ``response.completed`` event carrying the
        recorded output and usage (the turn arrives whole)."""
        if self._nested():
            async for event in self.wrapped.stream_response(
                system_instructions, input, model_settings, tools, output_schema, handoffs,
                tracing, previous_response_id=previous_response_id,
                conversation_id=conversation_id, prompt=prompt,
            ):
                yield event
            return
        turn, digest, recorded = await self._recorded(system_instructions, input)
        if recorded is not None:
            yield ResponseCompletedEvent(type="response.completed", sequence_number=0,
                                         response=_replayed_response(recorded, turn))
            return
        completed: Response | None = None
        items: list[Any] = []
        try:
            async for event in self.wrapped.stream_response(
                system_instructions, input, model_settings, tools, output_schema, handoffs,
                tracing, previous_response_id=previous_response_id,
                conversation_id=conversation_id, prompt=prompt,
            ):
                if isinstance(event, ResponseCompletedEvent):
                    completed = event.response
                elif isinstance(event, ResponseOutputItemDoneEvent):
                    items.append(event.item)
                yield event
        except BaseException:
            self._give_back(turn)
            raise
        if completed is None:  # the runner fails the turn: nothing to record
            self._give_back(turn)
            return
        await self._record(turn, digest, completed.output or items,
                           _stream_usage(completed.usage), completed.id)

    async def close(self) -> None:
        await self.wrapped.close()


def _stream_usage(usage: ResponseUsage | None) -> Usage:
    if usage is None:
        return Usage(requests=1)
    return Usage(requests=1, input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                 total_tokens=usage.total_tokens,
                 input_tokens_details=usage.input_tokens_details,
                 output_tokens_details=usage.output_tokens_details)


def _replayed_response(recorded: Any, turn: int) -> Response:
    usage = _USAGE.validate_python(recorded["usage"])
    return Response.model_construct(
        id=recorded.get("response_id") or f"actae-replay-{turn}", object="response",
        created_at=0, model="", parallel_tool_calls=False, tool_choice="auto", tools=[],
        output=_OUTPUT.validate_python(recorded["output"]),
        usage=ResponseUsage(
            input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
            total_tokens=usage.total_tokens,
            input_tokens_details=usage.input_tokens_details,
            output_tokens_details=usage.output_tokens_details),
    )
