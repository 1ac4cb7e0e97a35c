"""A review bot comments on a pull request (4 steps, a list of comments)."""

from __future__ import annotations

from typing import Any

from actae.demo.research import Agent
from tests.tools.scenarios.common import effect

DIFF = {
    "sql/10_executions.sql": "update executions set lease expires at clock timestamp plus lease",
    "python/actae/tools.py": "heartbeat every third of the lease while the tool runs",
    "README.md": "document the idempotency key derivation and compensation keys",
}


def run(agent: Agent) -> None:
    fetched = effect(agent, "fetch_diff", "diff:pr-77", {"pr": 77})
    agent.step("fetch", pr=77, files=sorted(DIFF), fetch=fetched)
    comments = [
        {"file": name, "comment": agent.think(
            "review", f"Review the change to {name}: {DIFF[name]}", 40)["text"]}
        for name in sorted(DIFF)
    ]
    agent.step("review", comments=comments)
    posted = [effect(agent, "comment", f"comment:77:{c['file']}",
                     {"pr": 77, "file": c["file"], "body": c["comment"]}) for c in comments]
    agent.step("post", posted=posted)
    approval = effect(agent, "approve", "approve:77", {"pr": 77, "comments": len(comments)})
    agent.step("approve", approval=approval, verdict="approved")


def output(state: dict[str, Any]) -> str:
    return " ".join(c["comment"] for c in state["comments"]) + f" {state['verdict']}"
