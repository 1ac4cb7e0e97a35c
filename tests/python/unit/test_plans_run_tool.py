"""run_tool's and compensate's decision plan, every branch, with scripted replies: no database.

A plan (actae.plans.tools) is a generator that yields database calls and local steps and
receives their replies. Each test plays the database and the runtime: a Script answers each
step the plan yields with the next scripted reply, after checking that the step is the one
expected (a call by its SQL, a local step by its type). So a test fails when the plan asks
for something else, asks in another order, or asks for more or fewer steps than scripted.
The branches: replayed; claimed -> complete; claimed -> fail retryable / permanent / not at
all (KeyboardInterrupt); reclaimed ambiguous with reconcile hit / miss / raise; in_progress
waiting then replay, backoff and timeout; failed; cancelled (stored, at claim, at a
heartbeat); lease lost; heartbeats; compensate.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar
from uuid import UUID, uuid4

import psycopg
import pytest

from actae import calls
from actae.context import ToolContext, compensation_key, idempotency_key
from actae.errors import (
    Cancelled,
    ConnectionFailed,
    InvalidInput,
    LeaseLost,
    NotFound,
    PermanentError,
    ToolFailed,
    ToolInProgress,
)
from actae.models import Claim, Execution
from actae.plans import Plan, Sleep
from actae.plans import tools as plans
from actae.plans.tools import Attempt, Raised, Returned, Start, Stop, Wait

CHANNEL, KEY, TOOL = "run-1", "charge:1", "charge"
PARAMS = {"amount": 5}
NOW = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
E = TypeVar("E", bound=BaseException)


def execution(**fields: Any) -> Execution:
    """An execution row as the database would return it (owned unless told otherwise)."""
    row: dict[str, Any] = {
        "execution_id": UUID(int=1), "channel_id": CHANNEL, "key_name": KEY,
        "tool_name": TOOL, "status": "claimed", "claim_token": UUID(int=2), "fence": 1,
        "attempt": 1, "lease_expires_at": NOW + timedelta(seconds=60), "params": PARAMS,
        "fingerprint": "f" * 64, "lease_seconds": 60, "created_at": NOW, "claimed_at": NOW,
    }
    row.update(fields)
    return Execution.model_validate(row)


def claim(outcome: str, **fields: Any) -> Claim:
    return Claim.model_validate({"status": outcome, "execution": execution(**fields)})


def tool(ctx: ToolContext) -> Any:  # never called: the runtime is scripted
    raise AssertionError("plans never call tools themselves")


def reconcile(ctx: ToolContext) -> Any:
    raise AssertionError("plans never call tools themselves")


Check = Callable[[Any], None]


def is_call(sql: str, **params: Any) -> Check:
    """The step is a database call with this SQL (and these parameters, when given)."""

    def check(step: Any) -> None:
        assert isinstance(step, calls.Call), step
        assert step.sql == sql, (step.sql, sql)
        for name, value in params.items():
            assert step.params[name] == value, (name, step.params[name], value)

    return check


def is_attempt(sql: str, **params: Any) -> Check:
    def check(step: Any) -> None:
        assert isinstance(step, Attempt), step
        is_call(sql, **params)(step.call)

    return check


def is_step(kind: type, **fields: Any) -> Check:
    def check(step: Any) -> None:
        assert isinstance(step, kind), step
        for name, value in fields.items():
            assert getattr(step, name) == value, (name, getattr(step, name), value)

    return check


CLAIM, COMPLETE, FAIL = calls.CLAIM, calls.COMPLETE, calls.FAIL
HEARTBEAT, BY_KEY = calls.HEARTBEAT, calls.GET_EXECUTION_BY_KEY


class Script:
    """Drives a plan: each yielded step must pass the next check and gets the next reply."""

    def __init__(self, *turns: tuple[Check, Any]) -> None:
        self.turns = list(turns)
        self.steps: list[Any] = []

    def run(self, plan: Plan[Any]) -> Any:
        reply: Any = None
        try:
            while True:
                step = plan.send(reply)
                self.steps.append(step)
                assert self.turns, f"unscripted step {step!r}"
                check, reply = self.turns.pop(0)
                check(step)
        except StopIteration as stop:
            assert not self.turns, f"scripted steps never asked for: {self.turns}"
            return stop.value

    def raises(self, plan: Plan[Any], error: type[E]) -> E:
        with pytest.raises(error) as raised:
            self.run(plan)
        assert not self.turns, f"scripted steps never asked for: {self.turns}"
        return raised.value

    def started(self) -> list[Start]:
        return [s for s in self.steps if isinstance(s, Start)]


def run_tool(**kw: Any) -> Plan[Any]:
    args: dict[str, Any] = {"channel_id": CHANNEL, "key_name": KEY, "tool_name": TOOL,
                            "params": PARAMS}
    args.update(kw)
    return plans.run_tool(tool, **args)


HANDLE = object()


# --- replayed and claimed -----------------------------------------------------------------


def test_replayed_returns_the_stored_result_and_starts_nothing() -> None:
    script = Script(
        (is_call(CLAIM, channel_id=CHANNEL, key_name=KEY, tool_name=TOOL, lease_seconds=60),
         claim("replayed", status="completed", claim_token=None, result={"ok": 1})),
    )
    assert script.run(run_tool()) == {"ok": 1}
    assert script.started() == []


def test_claimed_runs_the_tool_then_completes_with_its_value() -> None:
    script = Script(
        (is_call(CLAIM), claim("claimed")),
        (is_step(Start, fn=tool), HANDLE),
        (is_step(Wait, handle=HANDLE, timeout=20.0), Returned({"charge": "ch_1"})),
        (is_attempt(COMPLETE, execution_id=UUID(int=1), claim_token=UUID(int=2)),
         execution(status="completed", result={"charge": "ch_1", "stored": True})),
    )
    # the stored (JSON) form is returned, not the tool's own value
    assert script.run(run_tool()) == {"charge": "ch_1", "stored": True}
    assert script.steps[3].call.params["result"].obj == {"charge": "ch_1"}
    ctx = script.started()[0].ctx
    assert (ctx.channel_id, ctx.key_name, ctx.tool_name, ctx.params) == (
        CHANNEL, KEY, TOOL, PARAMS)
    assert ctx.idempotency_key == idempotency_key(CHANNEL, KEY)
    assert (ctx.fence, ctx.attempt, ctx.ambiguous, ctx.original) == (1, 1, False, None)
    assert (ctx.execution_id, ctx.claim_token) == (UUID(int=1), UUID(int=2))


def test_a_result_the_ledger_refuses_is_recorded_as_a_permanent_failure() -> None:
    """The tool ran: left claimed, the execution's lease would lapse and the tool run again."""
    refused = InvalidInput("result must be at most 1048576 bytes")
    script = Script(
        (is_call(CLAIM), claim("claimed")),
        (is_step(Start), HANDLE),
        (is_step(Wait), Returned({"huge": "x"})),
        (is_attempt(COMPLETE), refused),
        (is_attempt(FAIL, error="the tool's result could not be recorded: InvalidInput:"
                    " result must be at most 1048576 bytes", retryable=False),
         execution(status="failed", retryable=False)),
    )
    assert script.raises(run_tool(), InvalidInput) is refused


def test_a_completion_whose_connection_broke_is_sent_again() -> None:
    """The same token and result again: a no-op when the first reached the ledger, so the
    tool's result is recorded once and the tool does not run again (SPEC section 2)."""
    broken = psycopg.OperationalError("server closed the connection unexpectedly")
    script = Script(
        (is_call(CLAIM), claim("claimed")),
        (is_step(Start), HANDLE),
        (is_step(Wait), Returned(1)),
        (is_attempt(COMPLETE), broken),
        (is_attempt(COMPLETE), broken),
        (is_step(Sleep), None),
        (is_attempt(COMPLETE), execution(status="completed", result=1)),
    )
    assert script.run(run_tool()) == 1


def test_a_failure_that_cannot_be_recorded_raises_the_tools_error_noted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plans, "RECORD_RETRY_SECONDS", 0.0)
    broken = psycopg.OperationalError("server closed the connection unexpectedly")
    error = ValueError("the tool's own")
    script = Script(
        (is_call(CLAIM), claim("claimed")),
        (is_step(Start), HANDLE),
        (is_step(Wait), Raised(error)),
        (is_attempt(FAIL, error="ValueError: the tool's own"), broken),
    )
    assert script.raises(run_tool(), ValueError) is error
    assert error.__notes__ == [
        "Actae could not record this failure (the execution stays in flight; its next claim"
        " takes it over): server closed the connection unexpectedly"]


def test_a_failure_refused_when_sent_again_raises_the_tools_error_noted() -> None:
    """The first record may have reached the ledger (its reply lost) and the execution been
    claimed again since: the second is refused for that token, which says nothing of the
    tool; the tool's own error is raised, not LeaseLost."""
    broken = psycopg.OperationalError("server closed the connection unexpectedly")
    lost = LeaseLost("claim_token is not the current owner's")
    error = ValueError("the tool's own")
    script = Script(
        (is_call(CLAIM), claim("claimed")),
        (is_step(Start), HANDLE),
        (is_step(Wait), Raised(error)),
        (is_attempt(FAIL), broken),
        (is_attempt(FAIL), lost),
    )
    assert script.raises(run_tool(), ValueError) is error
    assert "sent again, it was refused" in error.__notes__[0]


def test_a_completion_refused_for_its_lease_records_nothing_more() -> None:
    lost = LeaseLost("claim token is not current")
    script = Script(
        (is_call(CLAIM), claim("claimed")),
        (is_step(Start), HANDLE),
        (is_step(Wait), Returned(1)),
        (is_attempt(COMPLETE), lost),
    )
    assert script.raises(run_tool(), LeaseLost) is lost


def test_an_error_text_postgres_cannot_store_is_recorded_escaped() -> None:
    script = Script(
        (is_call(CLAIM), claim("claimed")),
        (is_step(Start), HANDLE),
        (is_step(Wait), Raised(ValueError("a\x00b \udc80"))),
        (is_attempt(FAIL, error="ValueError: a\\x00b \\udc80"),
         execution(status="failed", retryable=True)),
    )
    script.raises(run_tool(), ValueError)


def test_a_retryable_error_is_recorded_as_retryable_and_raised() -> None:
    error = ConnectionError("provider timed out")
    script = Script(
        (is_call(CLAIM), claim("claimed")),
        (is_step(Start), HANDLE),
        (is_step(Wait), Raised(error)),
        (is_attempt(FAIL, error="ConnectionError: provider timed out", retryable=True),
         execution(status="failed", retryable=True)),
    )
    assert script.raises(run_tool(), ConnectionError) is error


class CardDeclined(PermanentError):
    pass


def test_a_permanent_error_is_recorded_as_not_retryable_and_raised() -> None:
    script = Script(
        (is_call(CLAIM), claim("claimed")),
        (is_step(Start), HANDLE),
        (is_step(Wait), Raised(CardDeclined("card declined"))),
        (is_attempt(FAIL, error="CardDeclined: card declined", retryable=False),
         execution(status="failed", retryable=False)),
    )
    script.raises(run_tool(), CardDeclined)


def test_a_long_error_is_cut_to_the_stored_size() -> None:
    script = Script(
        (is_call(CLAIM), claim("claimed")),
        (is_step(Start), HANDLE),
        (is_step(Wait), Raised(ValueError("x" * 20000))),
        (is_attempt(FAIL), execution(status="failed", retryable=True)),
    )
    script.raises(run_tool(), ValueError)
    assert len(script.steps[-1].call.params["error"]) == plans.MAX_ERROR_CHARS


def test_keyboard_interrupt_records_nothing_like_a_crash() -> None:
    script = Script(
        (is_call(CLAIM), claim("claimed")),
        (is_step(Start), HANDLE),
        (is_step(Wait), Raised(KeyboardInterrupt())),
    )
    script.raises(run_tool(), KeyboardInterrupt)


# --- heartbeats ---------------------------------------------------------------------------


def test_heartbeats_every_third_of_the_lease_until_the_tool_returns() -> None:
    beat = execution(status="in_progress")
    script = Script(
        (is_call(CLAIM, lease_seconds=9), claim("claimed", lease_seconds=9)),
        (is_step(Start), HANDLE),
        (is_step(Wait, timeout=3.0), None),
        (is_attempt(HEARTBEAT), beat),
        (is_step(Wait, timeout=3.0), None),
        (is_attempt(HEARTBEAT), OSError("connection dropped")),  # tried again in 1 s
        (is_step(Wait, timeout=plans.BEAT_RETRY), None),
        (is_attempt(HEARTBEAT), beat),  # answered: every third of the lease again
        (is_step(Wait, timeout=3.0), Returned("done")),
        (is_attempt(COMPLETE), execution(status="completed", result="done")),
    )
    assert script.run(run_tool(lease_seconds=9)) == "done"
    # a heartbeat waits for a pool connection at most BEAT_WAIT seconds, not the pool's 30
    assert {s.call.wait for s in script.steps if isinstance(s, Attempt)
            and s.call.sql == HEARTBEAT} == {plans.BEAT_WAIT}


# --- reclaimed and ambiguous --------------------------------------------------------------


def test_ambiguous_reclaim_with_a_reconcile_hit_records_the_providers_answer() -> None:
    script = Script(
        (is_call(CLAIM), claim("reclaimed", ambiguous=True, fence=2, attempt=2)),
        (is_step(Start, fn=reconcile), HANDLE),
        (is_step(Wait), Returned({"found": "ch_1"})),
        (is_attempt(COMPLETE), execution(status="completed", result={"found": "ch_1"})),
    )
    assert script.run(run_tool(reconcile=reconcile)) == {"found": "ch_1"}
    assert [s.fn for s in script.started()] == [reconcile]  # the tool never ran
    ctx = script.started()[0].ctx
    assert (ctx.fence, ctx.attempt, ctx.ambiguous) == (2, 2, True)


def test_ambiguous_reclaim_with_a_reconcile_miss_runs_the_tool() -> None:
    script = Script(
        (is_call(CLAIM), claim("reclaimed", ambiguous=True, fence=2)),
        (is_step(Start, fn=reconcile), "reconcile-handle"),
        (is_step(Wait, handle="reconcile-handle"), Returned(None)),
        (is_step(Start, fn=tool), HANDLE),
        (is_step(Wait, handle=HANDLE), Returned({"charge": "ch_2"})),
        (is_attempt(COMPLETE), execution(status="completed", result={"charge": "ch_2"})),
    )
    assert script.run(run_tool(reconcile=reconcile)) == {"charge": "ch_2"}


def test_a_reconcile_that_raises_records_nothing() -> None:
    script = Script(
        (is_call(CLAIM), claim("reclaimed", ambiguous=True, fence=2)),
        (is_step(Start, fn=reconcile), HANDLE),
        (is_step(Wait), Raised(TimeoutError("provider unreachable"))),
    )
    script.raises(run_tool(reconcile=reconcile), TimeoutError)


def test_ambiguous_reclaim_without_reconcile_runs_the_tool_again() -> None:
    script = Script(
        (is_call(CLAIM), claim("reclaimed", ambiguous=True, fence=2)),
        (is_step(Start, fn=tool), HANDLE),
        (is_step(Wait), Returned(1)),
        (is_attempt(COMPLETE), execution(status="completed", result=1)),
    )
    assert script.run(run_tool()) == 1


def test_a_reclaim_after_a_recorded_failure_does_not_reconcile() -> None:
    script = Script(
        (is_call(CLAIM), claim("reclaimed", ambiguous=False, fence=2)),
        (is_step(Start, fn=tool), HANDLE),
        (is_step(Wait), Returned(2)),
        (is_attempt(COMPLETE), execution(status="completed", result=2)),
    )
    assert script.run(run_tool(reconcile=reconcile)) == 2


# --- in_progress --------------------------------------------------------------------------


def test_in_progress_waits_with_backoff_then_replays_the_owners_result() -> None:
    busy = claim("in_progress", status="in_progress", claim_token=None, lease_seconds=1)
    script = Script(
        (is_call(CLAIM), busy),
        (is_step(Sleep, seconds=0.05), None),
        (is_call(CLAIM), busy),
        (is_step(Sleep, seconds=0.1), None),
        (is_call(CLAIM), busy),
        (is_step(Sleep, seconds=0.2), None),
        (is_call(CLAIM), busy),
        # capped at a third of the owner's lease (1 s): the lease lapses soon anyway
        (is_step(Sleep, seconds=1 / 3), None),
        (is_call(CLAIM), claim("replayed", status="completed", claim_token=None,
                               result={"by": "owner"})),
    )
    assert script.run(run_tool()) == {"by": "owner"}
    assert script.started() == []


def test_in_progress_then_reclaimed_runs_the_tool() -> None:
    script = Script(
        (is_call(CLAIM), claim("in_progress", status="in_progress", claim_token=None)),
        (is_step(Sleep), None),
        (is_call(CLAIM), claim("reclaimed", ambiguous=True, fence=2)),
        (is_step(Start, fn=tool), HANDLE),
        (is_step(Wait), Returned("mine")),
        (is_attempt(COMPLETE), execution(status="completed", result="mine")),
    )
    assert script.run(run_tool()) == "mine"


def test_wait_timeout_zero_raises_tool_in_progress_at_once() -> None:
    script = Script(
        (is_call(CLAIM), claim("in_progress", status="in_progress", claim_token=None)),
    )
    error = script.raises(run_tool(wait_timeout=0), ToolInProgress)
    assert isinstance(error, ToolInProgress)
    assert (error.sqlstate, error.status) == (None, "in_progress")
    assert error.detail["lease_expires_at"] == (NOW + timedelta(seconds=60)).isoformat()


def test_wait_timeout_bounds_the_total_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter([100.0, 100.0, 100.25, 100.35])  # deadline, then before each decision
    monkeypatch.setattr("actae.plans.tools.monotonic", lambda: next(clock))
    busy = claim("in_progress", status="in_progress", claim_token=None)
    script = Script(
        (is_call(CLAIM), busy),
        (is_step(Sleep, seconds=0.05), None),
        (is_call(CLAIM), busy),
        # 0.05 s of the 0.3 s budget left: sleep only that long, not the 0.1 s backoff
        (is_step(Sleep, seconds=pytest.approx(0.05)), None),
        (is_call(CLAIM), busy),
    )
    script.raises(run_tool(wait_timeout=0.3), ToolInProgress)


# --- failed and cancelled -----------------------------------------------------------------


def test_failed_raises_the_stored_error_without_running_anything() -> None:
    script = Script(
        (is_call(CLAIM), claim("failed", status="failed", claim_token=None, retryable=False,
                               error="CardDeclined: card declined")),
    )
    error = script.raises(run_tool(), ToolFailed)
    assert not isinstance(error, Cancelled)
    assert isinstance(error, ToolFailed)
    assert (error.message, error.sqlstate, error.status) == (
        "CardDeclined: card declined", None, "failed")
    assert error.detail == {
        "execution_id": str(UUID(int=1)), "channel_id": CHANNEL, "key_name": KEY,
        "tool_name": TOOL, "error": "CardDeclined: card declined"}


def test_a_cancelled_execution_raises_cancelled_by_its_status() -> None:
    # The status decides, not the text: an error that merely looks like a cancellation is
    # a plain failure, and a cancelled row with any text is a cancellation.
    looks_like = claim("failed", status="failed", claim_token=None, retryable=False,
                       error="cancelled: not really")
    assert not isinstance(Script((is_call(CLAIM), looks_like)).raises(run_tool(), ToolFailed),
                          Cancelled)
    cancelled = claim("failed", status="cancelled", claim_token=None, retryable=False,
                      error="stopped by the operator")
    error = Script((is_call(CLAIM), cancelled)).raises(run_tool(), Cancelled)
    assert isinstance(error, Cancelled)
    assert (error.message, error.sqlstate, error.status) == (
        "stopped by the operator", None, "cancelled")


def test_a_claim_of_a_cancel_requested_execution_fails_it_as_cancelled_without_running() -> None:
    script = Script(
        (is_call(CLAIM), claim("reclaimed", cancel_requested=True, cancel_reason="stop")),
        (is_attempt(FAIL, error="cancelled: stop", retryable=False),
         execution(status="cancelled", retryable=False, error="cancelled: stop")),
    )
    script.raises(run_tool(), Cancelled)
    assert script.started() == []


def test_a_cancellation_that_cannot_be_recorded_raises_the_recording_error() -> None:
    dropped = ConnectionFailed("connection dropped")
    script = Script(
        (is_call(CLAIM), claim("reclaimed", cancel_requested=True, cancel_reason="stop")),
        (is_attempt(FAIL, error="cancelled: stop", retryable=False), dropped),
    )
    assert script.raises(run_tool(), ConnectionFailed) is dropped
    assert script.started() == []


def test_cancel_requested_at_a_heartbeat_stops_the_tool_and_raises_cancelled() -> None:
    script = Script(
        (is_call(CLAIM), claim("claimed", lease_seconds=3)),
        (is_step(Start), HANDLE),
        (is_step(Wait, timeout=1.0), None),
        (is_attempt(HEARTBEAT),
         execution(status="in_progress", cancel_requested=True, cancel_reason="user stop")),
        (is_step(Stop, handle=HANDLE), None),
        (is_attempt(FAIL, error="cancelled: user stop", retryable=False),
         execution(status="cancelled", retryable=False, error="cancelled: user stop")),
    )
    error = script.raises(run_tool(lease_seconds=3), Cancelled)
    assert error.args == ("cancelled: user stop",)
    assert script.steps[4].ctx is script.started()[0].ctx  # the stopped tool's own context


def test_a_tool_that_finishes_while_being_stopped_is_recorded() -> None:
    script = Script(
        (is_call(CLAIM), claim("claimed", lease_seconds=3)),
        (is_step(Start), HANDLE),
        (is_step(Wait), None),
        (is_attempt(HEARTBEAT), execution(status="in_progress", cancel_requested=True)),
        (is_step(Stop), Returned({"done": True})),
        (is_attempt(COMPLETE), execution(status="completed", result={"done": True})),
    )
    assert script.run(run_tool(lease_seconds=3)) == {"done": True}


# --- lease lost ---------------------------------------------------------------------------


def test_lease_lost_at_a_heartbeat_stops_the_tool_and_raises_it() -> None:
    lost = LeaseLost("claim_token is not the current owner's", {"fence": 2})
    script = Script(
        (is_call(CLAIM), claim("claimed", lease_seconds=3)),
        (is_step(Start), HANDLE),
        (is_step(Wait), None),
        (is_attempt(HEARTBEAT), lost),
        (is_step(Stop, handle=HANDLE), None),
        (is_attempt(BY_KEY), execution(status="claimed", fence=2, claim_token=None)),
    )
    assert script.raises(run_tool(lease_seconds=3), LeaseLost) is lost


def test_lease_lost_to_a_cancellation_raises_cancelled() -> None:
    lost = LeaseLost("claim_token is not the current owner's")
    script = Script(
        (is_call(CLAIM), claim("claimed", lease_seconds=3)),
        (is_step(Start), HANDLE),
        (is_step(Wait), None),
        (is_attempt(HEARTBEAT), lost),
        (is_step(Stop), None),
        (is_attempt(BY_KEY), execution(status="cancelled", claim_token=None,
                                      error="cancelled: abandoned")),
    )
    error = script.raises(run_tool(lease_seconds=3), Cancelled)
    assert error.__cause__ is lost


# --- compensate ---------------------------------------------------------------------------


def compensate(**kw: Any) -> Plan[Any]:
    args: dict[str, Any] = {"channel_id": CHANNEL, "key_name": KEY, "tool_name": "refund"}
    args.update(kw)
    return plans.compensate(tool, **args)


def test_compensate_runs_the_undo_under_the_compensation_key_with_the_original() -> None:
    original = execution(status="completed", claim_token=None, result={"effect_id": "e1"})
    script = Script(
        (is_attempt(BY_KEY), original),
        (is_call(CLAIM, key_name=compensation_key(KEY), tool_name="refund"),
         claim("claimed", key_name=compensation_key(KEY), tool_name="refund",
               params={"compensates": KEY}, execution_id=uuid4())),
        (is_step(Start), HANDLE),
        (is_step(Wait), Returned({"refund": "r1"})),
        (is_attempt(COMPLETE), execution(status="completed", result={"refund": "r1"})),
    )
    assert script.run(compensate()) == {"refund": "r1"}
    assert script.steps[0].call.params == {"channel_id": CHANNEL, "key_name": KEY}
    assert script.steps[1].params["params"].obj == {"compensates": KEY}
    ctx = script.started()[0].ctx
    assert ctx.original == original and ctx.key_name == "compensate:charge:1"
    assert ctx.idempotency_key == idempotency_key(CHANNEL, "compensate:charge:1")


def test_compensate_passes_its_own_params() -> None:
    script = Script(
        (is_attempt(BY_KEY), execution(status="completed", claim_token=None)),
        (is_call(CLAIM), claim("replayed", status="completed", claim_token=None, result=7)),
    )
    assert script.run(compensate(params={"reason": "out of stock"})) == 7
    assert script.steps[1].params["params"].obj == {"reason": "out of stock"}


def test_compensate_of_something_that_never_ran_or_failed_does_nothing() -> None:
    missing = NotFound("no execution with key charge:1 in channel run-1")
    assert Script((is_attempt(BY_KEY), missing)).run(compensate()) is None
    for status in ("failed", "cancelled"):
        row = execution(status=status, claim_token=None, retryable=False)
        assert Script((is_attempt(BY_KEY), row)).run(compensate()) is None


def test_compensate_of_an_execution_in_flight_raises_tool_in_progress() -> None:
    for status in ("claimed", "in_progress"):
        row = execution(status=status, claim_token=None)
        error = Script((is_attempt(BY_KEY), row)).raises(compensate(), ToolInProgress)
        assert error.detail["status"] == status


def test_compensate_raises_any_other_error_of_the_lookup() -> None:
    boom = OSError("connection refused")
    assert Script((is_attempt(BY_KEY), boom)).raises(compensate(), OSError) is boom
