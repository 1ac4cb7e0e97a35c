"""A support agent settles a refund request (6 steps, flat state)."""

from __future__ import annotations

from typing import Any

from actae.demo.research import Agent
from tests.tools.scenarios.common import effect, observe

TICKET = ("Order 8812 arrived with a cracked screen. I would like my money back, or at least "
          "part of it, before the weekend. The courier said the box was dropped.")


def run(agent: Agent) -> None:
    triage = agent.think("triage", f"Classify this support ticket: {TICKET}", 30)
    agent.step("triage", ticket=TICKET, triage=triage["text"], category="damaged")
    order = observe(agent, "lookup", "lookup:8812", {"order": "8812"}, 1500, 12000)
    agent.step("lookup", order_id="8812", order_total_cents=order["value"],
               lookup_effect_id=order["effect_id"])
    total = order["value"]
    refund = total if total <= 6000 else total // 2
    agent.step("decide", refund_cents=refund, policy="full" if refund == total else "half")
    paid = effect(agent, "refund", "refund:8812", {"order": "8812", "amount_cents": refund})
    agent.step("refund", refund=paid)
    reply = agent.think("reply", f"Write a reply: we refunded {refund} cents for order 8812 "
                        f"because of {triage['text']}", 60)
    sent = effect(agent, "email", "reply:8812", {"to": "customer-8812", "body": reply["text"]})
    agent.step("reply", reply=reply["text"], email=sent)
    agent.step("close", status="closed")


def output(state: dict[str, Any]) -> str:
    return f"{state['policy']} refund of {state['refund_cents']} cents. {state['reply']}"
