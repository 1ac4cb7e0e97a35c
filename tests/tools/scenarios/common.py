"""Small helpers shared by the scenarios."""

from __future__ import annotations

from typing import Any

from actae import ToolContext
from actae.demo.research import Agent


def effect(agent: Agent, kind: str, key_name: str, params: dict[str, Any]) -> dict[str, Any]:
    """A side effect at the provider, durable: the provider's record of it."""
    return agent.act(kind, key_name, params,
                     lambda ctx: agent.provider.charge(ctx.idempotency_key, kind, params))


def varying(ctx_effect: dict[str, Any], low: int, high: int) -> int:
    """A value the provider decides at request time (derived from its effect id)."""
    return low + (int(ctx_effect["effect_id"]) * 7919) % (high - low)


def observe(agent: Agent, kind: str, key_name: str, params: dict[str, Any], low: int,
            high: int) -> dict[str, Any]:
    """A read whose answer varies between requests (a quote, a stock level)."""

    def call(ctx: ToolContext) -> dict[str, Any]:
        record = agent.provider.charge(ctx.idempotency_key, kind, params)
        return {"effect_id": record["effect_id"], "value": varying(record, low, high)}

    return agent.act(kind, key_name, params, call)
