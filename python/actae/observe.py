"""The one hook through which Actae's clients report what they do: logging and tracing.

Both clients pass every call through ``observer`` (``client.run``) and wrap ``run_tool`` and
``compensate`` in ``observer.plan(...)``. ``observer = None`` is the bare client; the default is
:class:`Observer`, which logs on the standard logger ``actae``:

* WARNING ``ambiguous takeover``: a claim reclaimed an execution whose previous attempt ended
  with no recorded outcome (its effect may have happened);
* INFO ``reclaimed``: a claim took over an execution after a retryable failure;
* WARNING ``lost lease``: a heartbeat, completion, failure or trace write was refused with
  AC423 (another worker owns the execution now);
* INFO ``cancellation requested`` (seen on a heartbeat) and ``cancelled`` (the attempt was
  failed as cancelled).

Each record carries the facts in ``record.actae`` (channel_id, key_name, tool_name,
execution_id, fence, attempt, ambiguous, ...). ``actae.otel.instrument()`` installs a subclass
that also opens a span per call. An observer's work for one call is a generator, like a plan:
it yields the calls to execute (the caller's first) and returns the caller's result, so the
same code serves the asyncio and the blocking client.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any, cast

from actae import calls
from actae._runtime import detach
from actae.errors import ActaeError, LeaseLost
from actae.models import Claim, Execution

logger = logging.getLogger("actae")


@dataclass(frozen=True)
class Detached:
    """A call an observer's steps hand off without waiting for it: the asyncio client runs
    it in a task of its own (a cancelled caller leaves at once, even when the pool has no
    free connection), the blocking client runs it at once. Its outcome is not sent back."""

    call: calls.Call[Any]


Steps = Generator["calls.Call[Any] | Detached", Any, Any]
#: the run functions, whose lost leases name the run (their calls carry no execution id)
_RUN_CALLS = frozenset({"heartbeat_run", "complete_run", "fail_run", "sleep_run",
                        "wait_for_event", "complete_run_and_claim"})
# The name of each statement the driver sends, read from its SQL on first use; a statement
# that calls more than one function has its driver method's name.
_NAMES: dict[str, str] = {calls.COMPLETE_RUN_AND_CLAIM: "complete_run_and_claim",
                          calls.CLAIM_RUNS_WITH_COMPLETED: "claim_runs_with_completed",
                          # a page of events (the channel's topic rides along)
                          calls.WATCH_PAGE: "list_events"}


def call_name(call: calls.Call[Any]) -> str:
    """The Actae function a call runs (``claim_execution``...), read from its SQL once."""
    name = _NAMES.get(call.sql)
    if name is None:
        text = call.sql
        start = text.find("actae.")
        name = text[start + 6:].split("(", 1)[0].split()[0] if start >= 0 else "sql"
        _NAMES[call.sql] = name
    return name


def facts_of(row: Execution) -> dict[str, Any]:
    return {
        "channel_id": row.channel_id, "key_name": row.key_name, "tool_name": row.tool_name,
        "execution_id": str(row.id), "fence": row.fence, "attempt": row.attempt,
        "ambiguous": row.ambiguous, "status": row.status,
    }


class Observer:
    """Logs takeovers, lost leases and cancellations (see the module docstring). Subclass
    and override :meth:`steps` and :meth:`plan` to do more."""

    def steps(self, call: calls.Call[Any]) -> Steps:
        try:
            result = yield call
        except LeaseLost as error:
            self.lost_lease(call, error)
            raise
        self.returned(call, result)
        return result

    @contextlib.contextmanager
    def plan(self, name: str, arguments: Mapping[str, Any]) -> Generator[None, None, None]:
        """Around one run_tool / compensate (``name``) with its keyword arguments."""
        yield

    # --- what is logged ----------------------------------------------------------------------

    def returned(self, call: calls.Call[Any], result: Any) -> None:
        if isinstance(result, list):
            if call_name(call) in ("claim_executions", "complete_executions"):
                for row in cast(list[Any], result):  # a batch: each element's row
                    self.returned(call, row)
        elif isinstance(result, Claim):
            if result.status == "reclaimed":
                self.reclaimed(result)
        elif isinstance(result, Execution):
            if result.cancel_requested and result.status in ("claimed", "in_progress"):
                self.log(logging.INFO, "cancellation requested for execution %s (%s): %s",
                         result, result.cancel_reason)
            elif result.status == "cancelled" and call_name(call) == "fail_execution":
                self.log(logging.INFO, "cancelled execution %s (%s): %s", result, result.error)

    def reclaimed(self, claim: Claim) -> None:
        row = claim.execution
        if row.ambiguous:
            self.log(logging.WARNING, "ambiguous takeover of execution %s (%s): the previous"
                     " attempt ended with no recorded outcome; fence %s, attempt %s", row,
                     row.fence, row.attempt)
        else:
            self.log(logging.INFO, "reclaimed execution %s (%s) after a retryable failure;"
                     " fence %s, attempt %s", row, row.fence, row.attempt)

    def lost_lease(self, call: calls.Call[Any], error: ActaeError) -> None:
        facts = {"function": call_name(call), **dict(error.detail or {})}
        if logger.isEnabledFor(logging.WARNING):
            params = call.params
            what = (f"run {params.get('channel_id')}" if facts["function"] in _RUN_CALLS
                    else f"execution {params.get('execution_id', params.get('execution_ids'))}")
            logger.warning("lost lease: %s of %s refused: %s", facts["function"], what, error,
                           extra={"actae": facts})

    def log(self, level: int, message: str, row: Execution, *args: Any) -> None:
        if logger.isEnabledFor(level):
            label = f"{row.channel_id}/{row.key_name}"
            logger.log(level, message, row.id, label, *args, extra={"actae": facts_of(row)})

    # --- drivers ------------------------------------------------------------------------------

    def watches_plans(self) -> bool:
        """False when :meth:`plan` is this class's own, which does nothing: the clients then
        run a plan without entering it."""
        return type(self).plan is not Observer.plan

    def _plain(self) -> bool:
        """True when ``steps`` is this class's own: one call, logged after it returns, so
        the drivers below run it without a generator per call (same outcome, less work)."""
        return type(self).steps is Observer.steps

    async def arun(self, execute: Callable[[calls.Call[Any]], Awaitable[Any]],
                   call: calls.Call[Any]) -> Any:
        if self._plain():
            try:
                result = await execute(call)
            except LeaseLost as error:
                self.lost_lease(call, error)
                raise
            self.returned(call, result)
            return result
        steps = self.steps(call)
        value: Any = None
        error: BaseException | None = None
        while True:
            try:
                step = steps.send(value) if error is None else steps.throw(error)
            except StopIteration as stop:
                return stop.value
            if isinstance(step, Detached):
                detach(asyncio.ensure_future(execute(step.call)))
                value, error = None, None
                continue
            try:
                value, error = await execute(step), None
            except BaseException as exc:  # noqa: BLE001 - handed to the steps (see run)
                value, error = None, exc

    def run(self, execute: Callable[[calls.Call[Any]], Any], call: calls.Call[Any]) -> Any:
        if self._plain():
            try:
                result = execute(call)
            except LeaseLost as error:
                self.lost_lease(call, error)
                raise
            self.returned(call, result)
            return result
        steps = self.steps(call)
        value: Any = None
        error: BaseException | None = None
        while True:
            try:
                step = steps.send(value) if error is None else steps.throw(error)
            except StopIteration as stop:
                return stop.value
            if isinstance(step, Detached):  # its outcome is not sent back, as under asyncio
                with contextlib.suppress(Exception):
                    execute(step.call)
                value, error = None, None
                continue
            try:
                value, error = execute(step), None
            except BaseException as exc:  # noqa: BLE001 - handed to the steps, which re-raise
                # it: a cancellation or an interrupt too, so a step's span ends when the call
                # does (not when the exception, which holds this frame, is collected)
                value, error = None, exc


#: The observer both clients report to; None turns reporting off entirely.
observer: Observer | None = Observer()
