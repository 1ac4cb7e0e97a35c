"""An OpenAI Agents SDK refund desk made durable by ActaeRun, killed after the refund went through.

    ACTAE_DSN=... python python/examples/openai_agents_refund.py

The agent's model is a scripted ``agents.models.interface.Model`` standing in for an LLM (no
network, no key; the SDK's trace export is switched off). The only Actae line is
``ActaeRun(client, run_id, ...).run(agent, input)`` in place of ``Runner.run(agent, input)``.
The story (a SIGKILL after the provider confirmed, a resume that refunds once, a fork at turn 2
that replays the prefix) is in refund_story.py; this file is the agent and its worker.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from typing import Any

import refund_story as story
from agents import Agent, ModelResponse, Usage, function_tool, set_tracing_disabled
from agents.models.interface import Model
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from actae import ActaeClient
from actae.openai_agents import ActaeRun, current_tool


class ScriptedModel(Model):
    """Asks for the tools of story.PLAN in order, then answers (Responses-format items)."""

    def __init__(self) -> None:
        self.calls = 0

    async def get_response(self, system_instructions: str | None, input: Any,
                           *args: Any, **kwargs: Any) -> ModelResponse:
        self.calls += 1
        items = input if isinstance(input, list) else []
        outputs = [i for i in items if isinstance(i, dict) and i.get("type") ==
                   "function_call_output"]
        usage = Usage(requests=1, input_tokens=story.INPUT_TOKENS,
                      output_tokens=story.OUTPUT_TOKENS,
                      total_tokens=story.INPUT_TOKENS + story.OUTPUT_TOKENS)
        if len(outputs) < len(story.PLAN):
            name, args = story.PLAN[len(outputs)]
            # a real model invents a fresh call id each time; the ledger keeps it for the resume
            call_id = f"call_{uuid.uuid4().hex[:12]}"
            item: Any = ResponseFunctionToolCall(
                type="function_call", id=f"fc_{call_id}", call_id=call_id, name=name,
                arguments=json.dumps(args), status="completed")
        else:
            item = ResponseOutputMessage(
                id=f"msg_{uuid.uuid4().hex[:8]}", type="message", role="assistant",
                status="completed", content=[ResponseOutputText(
                    type="output_text", text=story.answer(str(outputs[-1]["output"])),
                    annotations=[])])
        return ModelResponse(output=[item], usage=usage, response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("the scripted model does not stream")


def build_agent(model: ScriptedModel, provider: story.RefundProvider, crash_after_refund: bool,
                language: str) -> Agent[Any]:
    @function_tool
    def lookup_order(order_id: str) -> dict[str, Any]:
        """Find the order."""
        return story.lookup(order_id)

    @function_tool(failure_error_function=None)  # let a failure reach Actae, not the model
    def refund_payment(order_id: str, amount_cents: int) -> dict[str, Any]:
        """Refund the payment; the provider deduplicates on Actae's idempotency key."""
        return story.refund(provider, current_tool(), order_id, amount_cents,
                            crash_after_refund)

    @function_tool
    def send_receipt(order_id: str) -> str:
        """Send the customer a receipt."""
        return story.receipt(language)

    return Agent(name="refund desk", instructions="Refund the customer's order.", model=model,
                 tools=[lookup_order, refund_payment, send_receipt])


async def worker(dsn: str, run_id: str, crash_after_refund: bool, language: str) -> int:
    set_tracing_disabled(True)
    model = ScriptedModel()
    agent = build_agent(model, story.RefundProvider(dsn), crash_after_refund, language)
    async with ActaeClient(dsn, max_size=4) as client:
        durable = ActaeRun(client, run_id, dedup_fields={"refund_payment": ["order_id"]},
                           lease_seconds=story.LEASE_SECONDS)
        result = await durable.run(agent, "Please refund order 4471.")
    story.fact(output=result.final_output, model_calls=model.calls)
    return 0


if __name__ == "__main__":
    dsn = os.environ["ACTAE_DSN"]
    if len(sys.argv) > 2 and sys.argv[1] == "worker":
        sys.exit(asyncio.run(worker(dsn, *story.worker_args(sys.argv))))
    sys.exit(story.main(dsn, os.path.abspath(__file__), "OpenAI Agents SDK"))
