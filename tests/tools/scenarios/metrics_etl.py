"""A data agent builds a regional report (7 steps, counters by region)."""

from __future__ import annotations

from typing import Any

from actae.demo.research import Agent
from tests.tools.scenarios.common import effect, observe

REGIONS = ("north", "south", "east", "west")


def run(agent: Agent) -> None:
    for page in (1, 2, 3):
        rows = {r: observe(agent, "fetch", f"fetch:{page}:{r}", {"page": page, "region": r},
                           0, 500)["value"] for r in REGIONS}
        agent.step(f"fetch_page_{page}", **{f"page_{page}": rows})
    totals = {r: sum(agent.state[f"page_{p}"][r] for p in (1, 2, 3)) for r in REGIONS}
    top = max(REGIONS, key=lambda r: totals[r])
    agent.step("aggregate", totals=totals, top_region=top)
    note = agent.think("explain", f"Explain regional totals: {totals}; leader {top}", 60)
    agent.step("explain", note=note["text"])
    published = effect(agent, "publish", "publish:report", {"totals": totals})
    agent.step("publish", published=published)
    sent = effect(agent, "notify", "notify:team", {"top": top})
    agent.step("notify", notified=sent)


def output(state: dict[str, Any]) -> str:
    return f"top {state['top_region']} {state['totals']}. {state['note']}"
