"""An inventory agent reorders stock (5 steps, numbers)."""

from __future__ import annotations

from typing import Any

from actae.demo.research import Agent
from tests.tools.scenarios.common import effect, observe

TARGET = 120


def run(agent: Agent) -> None:
    stock = observe(agent, "stock", "stock:sku-3", {"sku": "sku-3"}, 5, 90)
    agent.step("check", sku="sku-3", on_hand=stock["value"])
    forecast = agent.think("forecast", f"Forecast demand for sku-3 with {stock['value']} on "
                           "hand, weekly sales rising, holiday ahead", 40)
    demand = 40 + len(forecast["text"].split()) % 30
    agent.step("forecast", forecast=forecast["text"], demand=demand)
    quantity = max(0, TARGET + demand - stock["value"])
    order = effect(agent, "purchase_order", "po:sku-3", {"sku": "sku-3", "quantity": quantity})
    agent.step("order", quantity=quantity, order=order)
    told = effect(agent, "supplier_email", "supplier:sku-3", {"quantity": quantity})
    agent.step("notify", supplier=told)
    agent.step("log", status="reordered")


def output(state: dict[str, Any]) -> str:
    return f"ordered {state['quantity']} of sku-3. {state['forecast']}"
