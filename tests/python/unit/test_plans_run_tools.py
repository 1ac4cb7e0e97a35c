"""run_tools' decision plan with scripted replies: no database (see test_plans_run_tool for
the Script). The branches the integration tests cannot time: a heartbeat while one tool
still runs and another has finished (both leases kept), a cancel seen at that heartbeat,
a refused complete_executions recorded element by element, an interrupt raised ahead of an
earlier element's error, a failure that could not be recorded, and a cancel-requested
element cancelled before any tool starts.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from actae import calls
from actae.errors import Cancelled, LeaseLost
from actae.plans import Plan
from actae.plans import tools as plans
from actae.plans.tools import Attempt, Raised, Returned, Start, Stop, Wait
from tests.python.unit.test_plans_run_tool import (
    CHANNEL,
    Script,
    claim,
    execution,
    is_attempt,
    is_call,
    is_step,
    tool,
)

A = {"execution_id": UUID(int=1), "claim_token": UUID(int=2), "key_name": "a"}
B = {"execution_id": UUID(int=3), "claim_token": UUID(int=4), "key_name": "b"}
HANDLE_A, HANDLE_B = object(), object()
CLAIMS, COMPLETES = calls.CLAIM_EXECUTIONS, calls.COMPLETE_EXECUTIONS
COMPLETE, FAIL, HEARTBEAT = calls.COMPLETE, calls.FAIL, calls.HEARTBEAT


def run_tools(**kw: Any) -> Plan[list[Any]]:
    return plans.run_tools([(tool, "a", "t", {}), (tool, "b", "t", {})], channel_id=CHANNEL,
                           **kw)


def started() -> list[Any]:
    """Claim both, start both: the turns every test begins with."""
    return [
        (is_call(CLAIMS, key_names=["a", "b"], lease_seconds=60),
         [claim("claimed", **A), claim("claimed", **B)]),
        (is_step(Start, fn=tool), HANDLE_A),
        (is_step(Start, fn=tool), HANDLE_B),
    ]


def is_wait(handle: object) -> Any:
    def check(step: Any) -> None:
        assert isinstance(step, Wait) and step.handle is handle, step
        assert 0 <= step.timeout <= 20.0  # a third of the 60 s lease at most

    return check


def is_beat(ids: dict[str, Any]) -> Any:
    def check(step: Any) -> None:
        assert isinstance(step, Attempt), step
        is_call(HEARTBEAT, execution_id=ids["execution_id"], claim_token=ids["claim_token"],
                channel_id=CHANNEL)(step.call)

    return check


def test_a_beat_keeps_the_running_and_the_finished_unrecorded_lease() -> None:
    script = Script(
        *started(),
        (is_wait(HANDLE_A), None),  # a third of the lease passes, a still runs
        (is_wait(HANDLE_B), Returned("b done")),
        (is_beat(A), execution(**A)),
        (is_beat(B), execution(**B)),  # finished, not recorded yet: its lease must hold
        (is_wait(HANDLE_A), Returned("a done")),
        (is_attempt(COMPLETES), [execution(**A, status="completed", result="a stored"),
                                 execution(**B, status="completed", result="b stored")]),
    )
    assert script.run(run_tools()) == ["a stored", "b stored"]
    assert script.steps[-1].call.params["execution_ids"] == [UUID(int=1), UUID(int=3)]


def test_a_cancel_seen_at_a_beat_stops_that_tool_and_the_other_is_still_recorded() -> None:
    script = Script(
        *started(),
        (is_wait(HANDLE_A), None),
        (is_wait(HANDLE_B), Returned("b done")),
        (is_beat(A), execution(**A, cancel_requested=True, cancel_reason="stop")),
        (is_step(Stop, handle=HANDLE_A), None),
        (is_attempt(FAIL, error="cancelled: stop", retryable=False),
         execution(**A, status="cancelled", error="cancelled: stop")),
        (is_beat(B), execution(**B)),
        (is_attempt(COMPLETES), [execution(**B, status="completed", result="b stored")]),
    )
    script.raises(run_tools(), Cancelled)
    assert script.steps[-1].call.params["execution_ids"] == [UUID(int=3)]


def test_a_refused_batch_completion_is_retried_element_by_element() -> None:
    lost = LeaseLost("fenced out", {"element": 1})
    script = Script(
        *started(),
        (is_wait(HANDLE_A), Returned("a done")),
        (is_wait(HANDLE_B), Returned("b done")),
        (is_attempt(COMPLETES), lost),
        (is_attempt(COMPLETE), LeaseLost("fenced out")),
        (is_attempt(COMPLETE), execution(**B, status="completed", result="b stored")),
    )
    script.raises(run_tools(), LeaseLost)  # a's; b's result is recorded, no fail for a


def test_an_interrupt_is_raised_ahead_of_an_earlier_elements_error() -> None:
    """a raises an ordinary error (recorded as a failure), b an interrupt: the interrupt is
    what the caller gets, not a's error, and nothing is recorded for b (like a crash)."""
    script = Script(
        *started(),
        (is_wait(HANDLE_A), Raised(ValueError("provider said no"))),
        (is_wait(HANDLE_B), Raised(KeyboardInterrupt())),
        (is_attempt(FAIL, execution_id=A["execution_id"], error="ValueError: provider said no",
                    retryable=True),
         execution(**A, status="failed", error="ValueError: provider said no")),
    )
    script.raises(run_tools(), KeyboardInterrupt)


def test_a_failure_that_could_not_be_recorded_raises_why_not_the_tools_error() -> None:
    """Recording a's failure is refused (its lease was taken over): the caller gets that
    refusal, as run_tool raises it, not the tool's error, which suggests it was stored."""
    script = Script(
        *started(),
        (is_wait(HANDLE_A), Raised(RuntimeError("provider timeout"))),
        (is_wait(HANDLE_B), Returned("b done")),
        (is_attempt(COMPLETES), [execution(**B, status="completed", result="b stored")]),
        (is_attempt(FAIL, execution_id=A["execution_id"]), LeaseLost("fenced out")),
    )
    error = script.raises(run_tools(), LeaseLost)
    assert str(error) == "fenced out"


def test_an_owned_claim_of_a_cancel_requested_execution_is_cancelled_without_running() -> None:
    """As run_tool: an element claimed (here reclaimed) with a cancel requested is recorded
    as cancelled before any tool starts; the other element runs and is recorded."""
    script = Script(
        (is_call(CLAIMS, key_names=["a", "b"]),
         [claim("reclaimed", **A, cancel_requested=True, cancel_reason="stop"),
          claim("claimed", **B)]),
        (is_attempt(FAIL, execution_id=A["execution_id"], error="cancelled: stop",
                    retryable=False),
         execution(**A, status="cancelled", error="cancelled: stop")),
        (is_step(Start, fn=tool), HANDLE_B),
        (is_wait(HANDLE_B), Returned("b done")),
        (is_attempt(COMPLETES), [execution(**B, status="completed", result="b stored")]),
    )
    script.raises(run_tools(), Cancelled)
    assert len(script.started()) == 1
