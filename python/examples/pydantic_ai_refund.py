"""A Pydantic AI refund desk made durable with one line, killed after the refund went through.

    ACTAE_DSN=... python python/examples/pydantic_ai_refund.py

The agent's model is a scripted ``FunctionModel`` standing in for an LLM (no network, no key).
Its only Actae line is ``capabilities=[ActaeDurability(client, ...)]``. The story (a SIGKILL
after the provider confirmed, a resume that refunds once, a fork at turn 2 that replays the
prefix) is in refund_story.py; this file is the agent and its worker.
"""

from __future__ import annotations

import asyncio
import os
import sys
import uuid
from typing import Any

import refund_story as story
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from actae import ActaeClient
from actae.pydantic_ai import ActaeDurability, current_tool


def scripted_model(calls: list[int]) -> FunctionModel:
    """Asks for the tools of story.PLAN in order, then answers."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls.append(1)
        returns = [p for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]
        usage = RequestUsage(input_tokens=story.INPUT_TOKENS, output_tokens=story.OUTPUT_TOKENS)
        if len(returns) < len(story.PLAN):
            name, args = story.PLAN[len(returns)]
            # a real model invents a fresh call id each time; the ledger keeps it for the resume
            call = ToolCallPart(name, args, tool_call_id=f"call_{uuid.uuid4().hex[:12]}")
            return ModelResponse(parts=[call], usage=usage, model_name="scripted")
        text = story.answer(str(returns[-1].content))
        return ModelResponse(parts=[TextPart(text)], usage=usage, model_name="scripted")

    return FunctionModel(respond)


def build_agent(client: ActaeClient, provider: story.RefundProvider, calls: list[int],
                crash_after_refund: bool, language: str) -> Agent[None, str]:
    agent = Agent(scripted_model(calls), capabilities=[ActaeDurability(
        client, dedup_fields={"refund_payment": ["order_id"]}, lease_seconds=story.LEASE_SECONDS)])

    @agent.tool_plain
    def lookup_order(order_id: str) -> dict[str, Any]:
        """Find the order."""
        return story.lookup(order_id)

    @agent.tool_plain
    def refund_payment(order_id: str, amount_cents: int) -> dict[str, Any]:
        """Refund the payment; the provider deduplicates on Actae's idempotency key."""
        return story.refund(provider, current_tool(), order_id, amount_cents,
                            crash_after_refund)

    @agent.tool_plain
    def send_receipt(order_id: str) -> str:
        """Send the customer a receipt."""
        return story.receipt(language)

    return agent


async def worker(dsn: str, run_id: str, crash_after_refund: bool, language: str) -> int:
    calls: list[int] = []
    provider = story.RefundProvider(dsn)
    async with ActaeClient(dsn, max_size=4) as client:
        agent = build_agent(client, provider, calls, crash_after_refund, language)
        result = await agent.run("Please refund order 4471.", run_id=run_id)
    story.fact(output=result.output, model_calls=len(calls))
    return 0


if __name__ == "__main__":
    dsn = os.environ["ACTAE_DSN"]
    if len(sys.argv) > 2 and sys.argv[1] == "worker":
        sys.exit(asyncio.run(worker(dsn, *story.worker_args(sys.argv))))
    sys.exit(story.main(dsn, os.path.abspath(__file__), "Pydantic AI"))
