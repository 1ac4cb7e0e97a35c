"""Durable Pydantic AI agents: every tool call through run_tool, every model turn recorded.

    from actae.pydantic_ai import ActaeDurability

    agent = Agent(model, tools=[charge_customer], capabilities=[ActaeDurability(client)])
    result = await agent.run("refund order 4471", run_id="refund-4471")

``ActaeDurability`` is a Pydantic AI *capability* (``pydantic_ai.capabilities.AbstractCapability``,
the framework's extension point for cross-cutting behaviour) using two of its hooks:

* ``wrap_model_request``: the run's Actae channel is its ``run_id``. Before a model request at
  step N it looks for the event with ``operation_id = "model:N"`` (event type
  ``pydantic_ai.model_response``) in the channel; when present, the recorded ``ModelResponse``
  is returned and the model is not called (no tokens spent). Otherwise the model is called and
  its response recorded with that operation_id before any tool of the turn runs.
* ``wrap_tool_execute``: each tool call is ``client.run_tool`` in the run's channel with
  ``key_name = "<tool_name>:<tool_call_id>"``. A replayed model turn carries the same tool-call
  ids, so a resumed run claims the same executions: a completed one replays its stored result,
  one whose worker died is reclaimed (``ambiguous``) and re-run with the same idempotency key.
  Inside the tool, :func:`current_tool` returns the Actae ``ToolContext`` (idempotency key,
  fence, attempt, ambiguous). ``ModelRetry`` or ``ToolFailed`` raised by a tool is recorded as the
  tool's outcome and raised again on replay, so the model sees the same retry prompt on resume.

Resume = run the agent again with the same ``run_id`` (and the same prompt): recorded turns
replay, completed tools replay, the rest runs live. A fork (``client.fork_channel``) of the run
at the cursor of turn N, run with the fork's channel id as ``run_id``, replays turns 1..N and
their tools and calls the model from turn N+1 on.

Per tool (``dedup_fields`` and ``lease_seconds`` as in run_tool): ``ActaeDurability(client,
dedup_fields={"charge_customer": ["order_id"]})``, or ``metadata={"actae": {"dedup_fields":
[...], "lease_seconds": 30, "durable": False}}`` on the tool. Tool results are stored as JSON
(``pydantic_core.to_jsonable_python``); a tool returns that JSON form on replay.

Streamed runs (``run_stream``) go through the same hook: a turn is recorded when its stream
has completed, and a replayed turn is delivered whole, without calling the model.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from decimal import Decimal
from typing import Any, cast

from pydantic import TypeAdapter
from pydantic_core import to_jsonable_python

from actae import calls
from actae._extras import needs
from actae._replay import current_tool, recorded_turns, running
from actae.client import ActaeClient
from actae.context import ToolContext

with needs("pydantic-ai", "actae.pydantic_ai"):
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.capabilities.abstract import (
        ValidatedToolArgs,
        WrapModelRequestHandler,
        WrapToolExecuteHandler,
    )
    from pydantic_ai.exceptions import (
        ModelRetry,
        ToolFailed,
        ToolFailedError,
        ToolRetryError,
        UserError,
    )
    from pydantic_ai.messages import (
        ModelMessagesTypeAdapter,
        ModelResponse,
        ToolCallPart,
        ToolReturn,
    )
    from pydantic_ai.models import ModelRequestContext
    from pydantic_ai.tools import RunContext, ToolDefinition

__all__ = ["MODEL_EVENT", "ActaeDurability", "ReplayDiverged", "current_tool", "turn_operation"]

#: event_type of a recorded model turn.
MODEL_EVENT = "pydantic_ai.model_response"
#: a tool's ModelRetry / ToolFailed is recorded as its result {mark: message} and raised again
#: on replay, so the model of a resumed run sees the same retry prompt or failure.
_OUTCOMES: dict[str, type[Exception]] = {
    "__actae_model_retry__": ModelRetry, "__actae_tool_failed__": ToolFailed,
}
#: a tool's ToolReturn (a value plus content for the model, e.g. an image) is recorded as
#: {mark: its JSON form} and rebuilt, live and on replay, so the model sees what it would
#: see without Actae, not a dict.
_TOOL_RETURN = "__actae_tool_return__"
_TOOL_RETURNS: TypeAdapter[ToolReturn[Any]] = TypeAdapter(ToolReturn)


#: why a run without run_id is refused (it could never be resumed)
_NEEDS_RUN_ID = "ActaeDurability needs a run_id: pass run_id= to agent.run"


def turn_operation(run_step: int) -> str:
    """The operation_id a model turn is recorded under."""
    return f"model:{run_step}"


class ReplayDiverged(UserError):
    """A recorded model turn was asked for with a different conversation: the run was resumed
    with another prompt, agent or tool set. Start a new run_id (or fork) instead."""


#: request_sha256 of turns recorded since the fingerprint covers tool arguments, tool
#: results and the tools offered (payload "digest": 2); a turn recorded before is compared
#: by the fingerprint it was recorded with (_digest(..., version=1)).
DIGEST_VERSION = 2


def _digest(messages: Sequence[Any], tools: Sequence[ToolDefinition] = (),
            version: int = DIGEST_VERSION) -> str:
    """A fingerprint of what the model is asked: text, instructions, tool calls with their
    arguments, tool results and the tools it is offered (name and parameters), not
    timestamps or ids the framework generates afresh on every run. Version 1 (turns recorded
    before) left out the arguments, results and tools. Left out in version 2 too: the
    results of tools that are not durable (they run again on a resume, and may answer
    otherwise). Numbers are taken as the ledger gives them back (_as_stored), so a live
    request and its resume agree."""
    live = {t.name for t in tools if _not_durable(t)}

    def parts(message: Any) -> list[Any]:
        out: list[Any] = []
        for part in getattr(message, "parts", []):
            kind = getattr(part, "part_kind", type(part).__name__)
            if kind in ("system-prompt", "user-prompt", "text", "retry-prompt"):
                out.append([kind, to_jsonable_python(getattr(part, "content", None))])
            elif kind in ("tool-call", "tool-return"):
                item = [kind, part.tool_name, part.tool_call_id]
                if version > 1 and not (kind == "tool-return" and part.tool_name in live):
                    body = part.args if kind == "tool-call" else part.content
                    item.append(_as_stored(to_jsonable_python(body, fallback=str)))
                out.append(item)
        return out

    def request(message: Any) -> list[Any]:
        # A request's instructions (Agent(instructions=...)) are part of what is asked; only
        # when there are some, so conversations without them keep the digest they had.
        instructions = getattr(message, "instructions", None)
        return parts(message) + ([["instructions", instructions]] if instructions else [])

    asked: list[Any] = [request(m) for m in messages]
    if version > 1:
        asked.append(["tools", sorted([t.name, t.parameters_json_schema] for t in tools)])
    text = json.dumps(asked, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _tool_metadata(tool: ToolDefinition) -> dict[str, Any]:
    """The tool's own Actae settings (metadata={"actae": {...}})."""
    return dict((tool.metadata or {}).get("actae") or {})


def _not_durable(tool: ToolDefinition) -> bool:
    """The tool runs live every time (metadata={"actae": {"durable": False}}): it is not
    run through run_tool, and its results are no part of a turn's fingerprint."""
    return _tool_metadata(tool).get("durable") is False


def _as_stored(value: Any) -> Any:
    """value as a jsonb round trip gives it back: jsonb keeps a number's digits, not its
    notation, so a float with no fraction (1e16, -0.0) comes back as an integer."""
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer():
            return int(Decimal(repr(value)))
        return value
    if isinstance(value, dict):
        return {k: _as_stored(v) for k, v in cast(dict[Any, Any], value).items()}
    if isinstance(value, list):
        return [_as_stored(v) for v in cast(list[Any], value)]
    return value


def _dump_response(response: ModelResponse) -> Any:
    return ModelMessagesTypeAdapter.dump_python([response], mode="json")[0]


def _load_response(payload: Any) -> ModelResponse:
    message = ModelMessagesTypeAdapter.validate_python([payload])[0]
    assert isinstance(message, ModelResponse)
    return message


def _outcome(error: BaseException | None) -> dict[str, str] | None:
    """The recorded form of a ModelRetry / ToolFailed (a subclass too), else None."""
    for mark, kind in _OUTCOMES.items():
        if isinstance(error, kind):
            return {mark: cast("ModelRetry | ToolFailed", error).message}
    return None


def _json_object(value: Any) -> dict[str, Any] | None:
    """A stored result as a dict when it is a JSON object (its keys are strings), else None."""
    return cast(dict[str, Any], value) if isinstance(value, dict) else None


@dataclass
class ActaeDurability(AbstractCapability[Any]):
    """Make an agent's tool calls and model turns durable in Actae (see the module docstring).
    The channel is the run's ``run_id``: pass ``run_id=`` to ``agent.run`` to resume a run."""

    client: ActaeClient
    _: KW_ONLY
    dedup_fields: Mapping[str, Sequence[str] | None] = field(default_factory=lambda: {})
    lease_seconds: int = 60
    record_model_turns: bool = True
    _recorded: dict[str, Any] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        # A string is refused, not split into letters; None is no dedup_fields.
        self.dedup_fields = calls.tools_field_names(self.dedup_fields)
        # Refused here, not at the first tool call, after a model turn was paid for.
        self.lease_seconds = calls.check_lease_seconds(self.lease_seconds)

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None

    async def for_run(self, ctx: RunContext[Any]) -> ActaeDurability:
        return replace(self)  # a fresh copy per run: its own map of recorded turns

    def get_default_run_id(self) -> str | None:
        # Asked for when agent.run gets no run_id. A generated one would record the run
        # under a channel no later run could name, so it could never be resumed.
        raise UserError(_NEEDS_RUN_ID)

    def _channel(self, ctx: RunContext[Any]) -> str:
        if not ctx.run_id:
            raise UserError(_NEEDS_RUN_ID)
        return ctx.run_id

    async def _recorded_turns(self, channel_id: str) -> dict[str, Any]:
        if self._recorded is None:
            self._recorded = await recorded_turns(self.client, channel_id, MODEL_EVENT)
        return self._recorded

    async def wrap_model_request(
        self, ctx: RunContext[Any], *, request_context: ModelRequestContext,
        handler: WrapModelRequestHandler,
    ) -> ModelResponse:
        if not self.record_model_turns:
            return await handler(request_context)
        channel_id = self._channel(ctx)
        operation_id = turn_operation(ctx.run_step)
        tools = request_context.model_request_parameters.function_tools
        digest = _digest(request_context.messages, tools)
        recorded = (await self._recorded_turns(channel_id)).get(operation_id)
        if recorded is not None:
            version = recorded.get("digest", 1)
            asked = digest if version == DIGEST_VERSION else _digest(
                request_context.messages, tools, version)
            if recorded.get("request_sha256") != asked:
                raise ReplayDiverged(
                    f"run {channel_id!r} turn {ctx.run_step} was recorded for another "
                    "conversation; resume with the same prompt, or use a new run_id"
                )
            return _load_response(recorded["response"])
        response = await handler(request_context)
        payload = {
            "run_step": ctx.run_step, "request_sha256": digest, "digest": DIGEST_VERSION,
            "model_name": response.model_name, "response": _dump_response(response),
            "usage": to_jsonable_python(response.usage),
        }
        await self.client.record_event(channel_id, MODEL_EVENT, payload, operation_id)
        return response

    def _tool_settings(self, tool_def: ToolDefinition) -> dict[str, Any]:
        settings = _tool_metadata(tool_def)
        if "dedup_fields" not in settings and tool_def.name in self.dedup_fields:
            settings["dedup_fields"] = self.dedup_fields[tool_def.name]  # checked when made
        return settings

    async def wrap_tool_execute(
        self, ctx: RunContext[Any], *, call: ToolCallPart, tool_def: ToolDefinition,
        args: ValidatedToolArgs, handler: WrapToolExecuteHandler,
    ) -> Any:
        if _not_durable(tool_def):
            return await handler(args)
        settings = self._tool_settings(tool_def)

        raised: list[Exception] = []

        async def body(actx: ToolContext) -> Any:
            try:
                with running(actx):
                    value = await handler(args)
                if isinstance(value, ToolReturn):
                    returned = cast("ToolReturn[Any]", value)
                    return {_TOOL_RETURN: _TOOL_RETURNS.dump_python(returned, mode="json")}
                return to_jsonable_python(value)
            except (ToolRetryError, ToolFailedError) as error:  # outcomes the model sees
                outcome = _outcome(error.__cause__)  # the tool's ModelRetry / ToolFailed
                if outcome is None:
                    raise
                raised.append(error)
                return outcome
            except (ModelRetry, ToolFailed) as error:
                # Raised by another capability's after_tool_execute (inside this hook): the
                # tool has run, so this is its outcome too, not a failure to run it again.
                raised.append(error)
                return _outcome(error)

        result = await self.client.run_tool(
            body, channel_id=self._channel(ctx),
            key_name=f"{call.tool_name}:{call.tool_call_id}", tool_name=call.tool_name,
            params=to_jsonable_python(args), dedup_fields=settings.get("dedup_fields"),
            lease_seconds=calls.check_lease_seconds(
                settings.get("lease_seconds", self.lease_seconds),
                f"lease_seconds of tool {tool_def.name}"),
        )
        stored = _json_object(result)
        if stored is not None and len(stored) == 1 and next(iter(stored)) in _OUTCOMES:
            if raised:
                raise raised[0]  # this run raised it: as the framework raised it
            mark, message = next(iter(stored.items()))
            raise _OUTCOMES[mark](message)  # a replay: the framework converts it as before
        if stored is not None and len(stored) == 1 and _TOOL_RETURN in stored:
            return _TOOL_RETURNS.validate_python(stored[_TOOL_RETURN])
        return result
