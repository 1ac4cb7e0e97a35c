"""The DBOS side of the benchmarks: a tool call is one @DBOS.step() inside a workflow.

DBOS keeps its own system database (dbos_sys) on the same server as Actae's database. Each
worker process launches its own DBOS instance with a distinct executor id, as a fleet of
agent processes would; the schema is migrated once, before the workers start.
"""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

from dbos import DBOS, SetWorkflowID

STEPS = 10


@DBOS.step()
def tool_step(i: int) -> dict[str, Any]:
    return {"ok": True, "i": i}


@DBOS.workflow()
def steps_workflow(n: int) -> list[tuple[float, float]]:
    """(epoch second the step ended, seconds it took) for each of n tool calls."""
    timings = []
    for i in range(n):
        t0 = time.perf_counter()
        tool_step(i)
        timings.append((time.time(), time.perf_counter() - t0))
    return timings


@DBOS.workflow()
def one_step_workflow() -> dict[str, Any]:
    return tool_step(0)


@DBOS.workflow()
def counted_workflow(n: int) -> int:
    for i in range(n):
        tool_step(i)
    return n


def launch(url: str, executor_id: str, migrate: bool = False) -> SimpleNamespace:
    DBOS(config={
        "name": "bench", "system_database_url": url, "sys_db_pool_size": 4,
        "executor_id": executor_id, "log_level": "WARNING", "run_migrations": migrate,
    })
    DBOS.launch()
    return SimpleNamespace(
        SetWorkflowID=SetWorkflowID, steps_workflow=steps_workflow,
        one_step_workflow=one_step_workflow, counted_workflow=counted_workflow, STEPS=STEPS,
        shutdown=lambda: DBOS.destroy(destroy_registry=False),
    )


def migrate(url: str) -> None:
    """Create and migrate the system database once (run in its own process)."""
    app = launch(url, "migrate", migrate=True)
    app.shutdown()
