"""Fork-fidelity scenarios: unrelated agents with different step counts, tools and states.

Each scenario is a workflow ``run(agent)`` written on actae.demo.research.Agent (every step a
transition_state, every model call and side effect a run_tool), with fixed inputs, and the
step a fork is taken after. Some tools are non-deterministic on purpose: their answers
depend on the provider's effect id (a price quote, a stock level, an order total), as a
real API's answers depend on when it is asked. A fork inherits those answers; a re-run from
scratch gets new ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from actae.demo.research import Agent, research
from tests.tools.scenarios import code_review, metrics_etl, refund_desk, restock, trip_booking


@dataclass(frozen=True)
class Scenario:
    name: str
    description: str
    steps: int
    fork_at: int
    run: Callable[[Agent], Any]
    output: Callable[[dict[str, Any]], str]  # the deliverable a judge reads


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("research_agent", "plan, search x4, summarise x12, draft, review, revise, "
             "charge, receipt; nested lists of sources", 8, 5, research,
             lambda s: s["report"]),
    Scenario("refund_desk", "triage a ticket, look the order up (total varies), decide, "
             "refund, reply, close; flat record", 6, 3, refund_desk.run, refund_desk.output),
    Scenario("trip_booking", "quote fares (prices vary), choose, hold, pay, itinerary; "
             "list of legs", 5, 2, trip_booking.run, trip_booking.output),
    Scenario("metrics_etl", "fetch three pages (values vary), aggregate, explain, publish, "
             "notify; counters by region", 7, 4, metrics_etl.run, metrics_etl.output),
    Scenario("code_review", "fetch a diff, review each file, post comments, approve; "
             "list of comments", 4, 2, code_review.run, code_review.output),
    Scenario("restock", "check stock (level varies), forecast, order, tell the supplier, "
             "log; numbers", 5, 3, restock.run, restock.output),
)
