"""A travel agent books the cheapest fare (5 steps, a list of legs)."""

from __future__ import annotations

from typing import Any

from actae.demo.research import Agent
from tests.tools.scenarios.common import effect, observe

LEGS = (("LIS", "AMS"), ("AMS", "HEL"))
CARRIERS = ("north", "west", "blue")


def run(agent: Agent) -> None:
    fares = [
        {"from": a, "to": b, "carrier": c,
         **observe(agent, "quote", f"quote:{a}-{b}:{c}", {"from": a, "to": b, "carrier": c},
                   80, 400)}
        for a, b in LEGS for c in CARRIERS
    ]
    agent.step("quote", fares=fares)
    legs = [min((f for f in fares if (f["from"], f["to"]) == leg), key=lambda f: f["value"])
            for leg in LEGS]
    agent.step("choose", legs=[{"from": f["from"], "to": f["to"], "carrier": f["carrier"],
                                "fare": f["value"]} for f in legs])
    holds = [effect(agent, "hold", f"hold:{f['from']}-{f['to']}",
                    {"carrier": f["carrier"], "fare": f["value"]}) for f in legs]
    agent.step("hold", holds=holds)
    total = sum(f["value"] for f in legs)
    payment = effect(agent, "pay", "pay:trip", {"amount": total, "holds": len(holds)})
    agent.step("pay", total=total, payment=payment)
    text = agent.think("itinerary", "Write an itinerary: " + "; ".join(
        f"{f['from']} to {f['to']} with {f['carrier']} for {f['value']}" for f in legs), 80)
    agent.step("itinerary", itinerary=text["text"])


def output(state: dict[str, Any]) -> str:
    return f"total {state['total']}. {state['itinerary']}"
